// The gated delta rule (kernels::delta_rule, Qwen3.5's linear attention) at Qwen3.5's head size,
// dk = dv = 128, one thread, on the scalar reference and on the active SIMD table:
//
//   build/bench/strata_delta_rule_bench
//   STRATA_KERNELS=avx2 build/bench/strata_delta_rule_bench
//
// One iteration runs the rule once on each of `heads` value heads (each its own 64 KB state,
// its own q, k and v). heads:1 keeps the state in L2: the kernel's own speed. heads:960 is one
// token of one sequence of Qwen3.5-35B-A3B (30 delta-net layers x 32 value heads, 60 MB of
// state), so the state streams from DRAM and back as in a real decode; its time per iteration
// is the recurrence's time per token. GB/s counts the state read and written.
// CPU time, so a busy machine disturbs the figures less than wall time would.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernel_table.h"

namespace strata::kernels {
namespace {

constexpr int kHeadDim = 128;
constexpr size_t kStateFloats = size_t{kHeadDim} * kHeadDim;

// Pseudo-random floats in [-1, 1) (xorshift; the arithmetic does not depend on the values
// beyond their staying finite and normal).
std::vector<float> pseudo_random_floats(size_t n, uint64_t seed) {
  std::vector<float> x(n);
  uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
  for (float& f : x) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    f = static_cast<float>(static_cast<int64_t>(s >> 40) - (int64_t{1} << 23)) / static_cast<float>(1 << 23);
  }
  return x;
}

// Scales each head's dk floats to unit length, as the model l2-normalises q and k: with
// decay < 1 and beta < 1 the states then stay bounded however many iterations run.
void normalise_heads(std::vector<float>& x) {
  for (size_t h = 0; h + kHeadDim <= x.size(); h += kHeadDim) {
    float sum = 0.0f;
    for (int j = 0; j < kHeadDim; ++j) sum += x[h + j] * x[h + j];
    for (int j = 0; j < kHeadDim; ++j) x[h + j] /= std::sqrt(sum);
  }
}

void BM_DeltaRule(benchmark::State& state, bool simd) {
  const KernelTable& table = simd ? active_table() : reference_table();
  const int n_heads = static_cast<int>(state.range(0));
  std::vector<float> states = pseudo_random_floats(kStateFloats * n_heads, 1);
  std::vector<float> q = pseudo_random_floats(size_t{kHeadDim} * n_heads, 2);
  std::vector<float> k = pseudo_random_floats(size_t{kHeadDim} * n_heads, 3);
  const std::vector<float> v = pseudo_random_floats(size_t{kHeadDim} * n_heads, 4);
  normalise_heads(q);
  normalise_heads(k);
  std::vector<float> out(size_t{kHeadDim} * n_heads);
  const float scale = 1.0f / std::sqrt(static_cast<float>(kHeadDim));
  for (auto _ : state) {
    for (int h = 0; h < n_heads; ++h) {
      const size_t vec = size_t{kHeadDim} * h;
      table.delta_rule(states.data() + kStateFloats * h, q.data() + vec, k.data() + vec, v.data() + vec, 0.97f,
                       0.5f, scale, kHeadDim, kHeadDim, out.data() + vec);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  const double heads = static_cast<double>(state.iterations()) * n_heads;
  state.counters["heads/s"] = benchmark::Counter(heads, benchmark::Counter::kIsRate);
  state.counters["GB/s"] =
      benchmark::Counter(heads * 2 * kStateFloats * sizeof(float) / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(table.name);
}

void delta_rule_heads(benchmark::internal::Benchmark* b) {
  b->Arg(1)->Arg(960)->ArgName("heads")->MinTime(0.5)->Unit(benchmark::kMicrosecond);
}

BENCHMARK_CAPTURE(BM_DeltaRule, scalar, false)->Apply(delta_rule_heads);
BENCHMARK_CAPTURE(BM_DeltaRule, simd, true)->Apply(delta_rule_heads);

}  // namespace
}  // namespace strata::kernels

BENCHMARK_MAIN();
