// Kernel microbenchmarks: matmul per weight type and shape (GB/s of weights streamed),
// a TinyLlama-1.1B-shaped decode (all of one token's matmuls, tok/s), and the machine's
// read bandwidth for the roofline. Matrices are packed as a loaded model's are when the
// active kernel table packs their type (the label then says "packed").
//
// Weights are cycled over enough copies (>= 512 MiB) that every call streams from DRAM,
// as a real decode does; random codes with sane scales (the arithmetic does not depend on
// the values, only the bytes read do).
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/aligned_buffer.h"
#include "base/thread_pool.h"
#include "kernels/bandwidth.h"
#include "kernels/kernels.h"
#include "tensor/block_layouts.h"

namespace strata::kernels {
namespace {

constexpr size_t kColdBytes = size_t{512} << 20;
constexpr int kThreads = 2;

// A half-float scale of about 0.004: every weight block gets the same one.
constexpr uint16_t kScaleF16 = 0x1c00;

void fill_pseudo_random(std::byte* p, size_t n, uint64_t seed) {
  uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
  for (size_t i = 0; i + 8 <= n; i += 8) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    std::memcpy(p + i, &s, 8);
  }
}

// Rewrites the scale fields of every block (random bits could be Inf/NaN).
void fix_scales(DType type, std::byte* p, size_t n_bytes) {
  const size_t bb = dtype_info(type).block_bytes;
  for (size_t off = 0; off + bb <= n_bytes; off += bb) {
    switch (type) {
      case DType::kQ8_0: case DType::kQ4_0: case DType::kQ5_0: case DType::kIQ4_NL: case DType::kIQ4_XS:
      case DType::kIQ3_S: case DType::kIQ3_XXS: case DType::kIQ2_XXS: case DType::kIQ2_XS: case DType::kIQ2_S:
      case DType::kIQ1_S:
        std::memcpy(p + off, &kScaleF16, 2);
        break;
      case DType::kQ4_K: case DType::kQ5_K:
        std::memcpy(p + off, &kScaleF16, 2);
        std::memcpy(p + off + 2, &kScaleF16, 2);
        break;
      case DType::kQ6_K:
        std::memcpy(p + off + offsetof(BlockQ6_K, d), &kScaleF16, 2);
        break;
      case DType::kQ2_K:
        std::memcpy(p + off + offsetof(BlockQ2_K, d), &kScaleF16, 2);
        std::memcpy(p + off + offsetof(BlockQ2_K, dmin), &kScaleF16, 2);
        break;
      case DType::kQ3_K:
        std::memcpy(p + off + offsetof(BlockQ3_K, d), &kScaleF16, 2);
        break;
      case DType::kTQ1_0:
        std::memcpy(p + off + offsetof(BlockTQ1_0, d), &kScaleF16, 2);
        break;
      case DType::kTQ2_0:
        std::memcpy(p + off + offsetof(BlockTQ2_0, d), &kScaleF16, 2);
        break;
      case DType::kMXFP4:  // exponent byte: 2^(120 - 128), kScaleF16's value
        p[off] = std::byte{120};
        break;
      case DType::kF16: case DType::kBF16:
        std::memcpy(p + off, &kScaleF16, 2);
        break;
      case DType::kF32: {
        const float v = 0.01f;
        std::memcpy(p + off, &v, 4);
        break;
      }
      default:
        break;
    }
  }
}

// n_copies matrices of one shape in one buffer, to be used round-robin; packed into a second
// buffer when the active table packs the type, as Model::Load does.
struct MatrixSet {
  AlignedBuffer bytes;
  AlignedBuffer packed;
  std::vector<WeightMatrix> copies;
  size_t matrix_bytes = 0;
  bool is_packed = false;

  MatrixSet(DType type, int64_t n_out, int64_t n_in, size_t min_total_bytes) {
    const size_t row_bytes = *dtype_row_bytes(type, static_cast<uint64_t>(n_in));
    matrix_bytes = row_bytes * static_cast<size_t>(n_out);
    const size_t n_copies = (min_total_bytes + matrix_bytes - 1) / matrix_bytes;
    bytes.resize(matrix_bytes * n_copies);
    fill_pseudo_random(bytes.data(), bytes.size(), static_cast<uint64_t>(n_out * 31 + n_in));
    fix_scales(type, bytes.data(), bytes.size());
    for (size_t c = 0; c < n_copies; ++c) {
      copies.push_back(WeightMatrix{type, bytes.data() + c * matrix_bytes, n_out, n_in, row_bytes});
    }
    const size_t packed_bytes = packed_matrix_bytes(copies[0]);
    if (packed_bytes == 0) return;
    packed.resize(packed_bytes * n_copies);
    for (size_t c = 0; c < n_copies; ++c) {
      pack_matrix(copies[c], packed.data() + c * packed_bytes);
      copies[c].packed = packed.data() + c * packed_bytes;
    }
    is_packed = true;
  }
};

std::vector<float> inputs(size_t n) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>((i * 7919) % 2001) / 1000.0f - 1.0f;
  return x;
}

void BM_Matmul(benchmark::State& state, DType type) {
  const int64_t n_out = state.range(0), n_in = state.range(1);
  const int n_rows = static_cast<int>(state.range(2));
  MatrixSet set(type, n_out, n_in, kColdBytes);
  const std::vector<float> x = inputs(static_cast<size_t>(n_in) * n_rows);
  std::vector<float> y(static_cast<size_t>(n_out) * n_rows);
  AlignedBuffer scratch(matmul_scratch_bytes(type, n_in, n_rows));
  ThreadPool pool(kThreads);
  size_t next = 0;
  for (auto _ : state) {
    matmul(set.copies[next], x.data(), n_rows, y.data(), scratch, pool);
    next = (next + 1) % set.copies.size();
    benchmark::DoNotOptimize(y.data());
  }
  const double iters = static_cast<double>(state.iterations());
  state.counters["GB/s"] = benchmark::Counter(iters * set.matrix_bytes / 1e9, benchmark::Counter::kIsRate);
  state.counters["rows/s"] = benchmark::Counter(iters * n_rows, benchmark::Counter::kIsRate);
  state.SetLabel(std::string(active_isa()) + (set.is_packed ? " packed" : ""));
}

// The kernel's own speed with the weights in cache (one thread, CPU time): what a matmul
// costs once memory is not the limit. Decode overlaps this with the DRAM stream, so the
// closer it is to zero the closer decode gets to the bandwidth roofline; prefill is this.
// Measured in CPU time, so a busy machine disturbs it less than the real-time figures.
void BM_MatmulHot(benchmark::State& state, DType type) {
  const int64_t n_out = state.range(0), n_in = state.range(1);
  const int n_rows = static_cast<int>(state.range(2));
  MatrixSet set(type, n_out, n_in, 1);
  const std::vector<float> x = inputs(static_cast<size_t>(n_in) * n_rows);
  std::vector<float> y(static_cast<size_t>(n_out) * n_rows);
  AlignedBuffer scratch(matmul_scratch_bytes(type, n_in, n_rows));
  ThreadPool pool(1);
  for (auto _ : state) {
    matmul(set.copies[0], x.data(), n_rows, y.data(), scratch, pool);
    benchmark::DoNotOptimize(y.data());
  }
  const double iters = static_cast<double>(state.iterations());
  state.counters["GB/s"] = benchmark::Counter(iters * set.matrix_bytes / 1e9, benchmark::Counter::kIsRate);
  state.counters["GMAC/s"] =
      benchmark::Counter(iters * n_rows * static_cast<double>(n_out * n_in) / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(std::string(active_isa()) + (set.is_packed ? " packed" : ""));
}

void hot_shapes(benchmark::internal::Benchmark* b) {
  for (int rows : {1, 2, 4, 8, 32, 64}) b->Args({256, 2048, rows});
  // ffn_down's width: a 16-row group of 5632 inputs outgrows L1, so a prompt's later tiles
  // read the group from L2.
  b->Args({256, 5632, 64});
  b->ArgNames({"out", "in", "rows"})->MinTime(0.2)->Unit(benchmark::kMicrosecond);
}

void matmul_shapes(benchmark::internal::Benchmark* b) {
  for (int rows : {1, 2, 8, 64}) {
    b->Args({2048, 2048, rows});
    b->Args({5632, 2048, rows});
    b->Args({2048, 5632, rows});
  }
  b->ArgNames({"out", "in", "rows"})->UseRealTime()->MinTime(0.3)->Unit(benchmark::kMillisecond);
}

// One decode step's matmuls for TinyLlama-1.1B (22 layers; wq, wk, wv, wo, gate, up,
// down; then the 32000-row output), in `type` except the output (`out_type`).
struct TinyLlamaWeights {
  std::vector<std::unique_ptr<MatrixSet>> layers;  // one set per projection, 22 copies each
  std::unique_ptr<MatrixSet> output;
  size_t total_bytes = 0;

  TinyLlamaWeights(DType type, DType ffn_down_type, DType out_type) {
    struct Shape { int64_t n_out, n_in; bool down; };
    const Shape shapes[] = {{2048, 2048, false}, {256, 2048, false}, {256, 2048, false}, {2048, 2048, false},
                            {5632, 2048, false}, {5632, 2048, false}, {2048, 5632, true}};
    for (const Shape& s : shapes) {
      const DType t = s.down ? ffn_down_type : type;
      const size_t one = *dtype_row_bytes(t, static_cast<uint64_t>(s.n_in)) * s.n_out;
      layers.push_back(std::make_unique<MatrixSet>(t, s.n_out, s.n_in, one * 22));
      total_bytes += layers.back()->matrix_bytes * 22;
    }
    output = std::make_unique<MatrixSet>(out_type, 32000, 2048, 1);
    total_bytes += output->matrix_bytes;
  }
};

void BM_TinyLlamaDecode(benchmark::State& state, DType type, DType ffn_down_type, DType out_type) {
  const int n_rows = static_cast<int>(state.range(0));
  const int n_threads = static_cast<int>(state.range(1));
  TinyLlamaWeights w(type, ffn_down_type, out_type);
  const std::vector<float> x = inputs(5632 * static_cast<size_t>(n_rows));
  std::vector<float> y(32000 * static_cast<size_t>(n_rows));
  AlignedBuffer scratch(matmul_scratch_bytes(type, 5632, n_rows));
  ThreadPool pool(n_threads);
  for (auto _ : state) {
    for (int layer = 0; layer < 22; ++layer) {
      for (auto& set : w.layers) matmul(set->copies[layer], x.data(), n_rows, y.data(), scratch, pool);
    }
    matmul(w.output->copies[0], x.data(), n_rows, y.data(), scratch, pool);
    benchmark::DoNotOptimize(y.data());
  }
  const double iters = static_cast<double>(state.iterations());
  state.counters["tok/s"] = benchmark::Counter(iters * n_rows, benchmark::Counter::kIsRate);
  state.counters["GB/s"] = benchmark::Counter(iters * w.total_bytes / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(std::string(active_isa()) + (w.layers[0]->is_packed ? " packed" : ""));
}

void BM_ReadBandwidth(benchmark::State& state) {
  ThreadPool pool(kThreads);
  double gbs = 0.0;
  for (auto _ : state) gbs = measure_read_bandwidth_gbs(pool);
  state.counters["GB/s"] = gbs;
}

#define STRATA_MATMUL_BENCH(name, type) \
  BENCHMARK_CAPTURE(BM_Matmul, name, type)->Apply(matmul_shapes)
STRATA_MATMUL_BENCH(f32, DType::kF32);
STRATA_MATMUL_BENCH(f16, DType::kF16);
STRATA_MATMUL_BENCH(bf16, DType::kBF16);
STRATA_MATMUL_BENCH(q8_0, DType::kQ8_0);
STRATA_MATMUL_BENCH(q4_0, DType::kQ4_0);
STRATA_MATMUL_BENCH(q5_0, DType::kQ5_0);
STRATA_MATMUL_BENCH(q4_K, DType::kQ4_K);
STRATA_MATMUL_BENCH(q5_K, DType::kQ5_K);
STRATA_MATMUL_BENCH(q6_K, DType::kQ6_K);
STRATA_MATMUL_BENCH(q3_K, DType::kQ3_K);
STRATA_MATMUL_BENCH(q2_K, DType::kQ2_K);
STRATA_MATMUL_BENCH(iq4_nl, DType::kIQ4_NL);
STRATA_MATMUL_BENCH(mxfp4, DType::kMXFP4);
STRATA_MATMUL_BENCH(iq3_s, DType::kIQ3_S);
STRATA_MATMUL_BENCH(iq2_xs, DType::kIQ2_XS);
STRATA_MATMUL_BENCH(tq1_0, DType::kTQ1_0);
STRATA_MATMUL_BENCH(tq2_0, DType::kTQ2_0);

#define STRATA_MATMUL_HOT_BENCH(name, type) \
  BENCHMARK_CAPTURE(BM_MatmulHot, name, type)->Apply(hot_shapes)
STRATA_MATMUL_HOT_BENCH(q8_0, DType::kQ8_0);
STRATA_MATMUL_HOT_BENCH(q4_0, DType::kQ4_0);
STRATA_MATMUL_HOT_BENCH(q5_0, DType::kQ5_0);
STRATA_MATMUL_HOT_BENCH(iq4_nl, DType::kIQ4_NL);
STRATA_MATMUL_HOT_BENCH(mxfp4, DType::kMXFP4);
STRATA_MATMUL_HOT_BENCH(iq4_xs, DType::kIQ4_XS);
STRATA_MATMUL_HOT_BENCH(q4_K, DType::kQ4_K);
STRATA_MATMUL_HOT_BENCH(q5_K, DType::kQ5_K);
STRATA_MATMUL_HOT_BENCH(q6_K, DType::kQ6_K);
STRATA_MATMUL_HOT_BENCH(q3_K, DType::kQ3_K);
STRATA_MATMUL_HOT_BENCH(q2_K, DType::kQ2_K);
STRATA_MATMUL_HOT_BENCH(iq3_s, DType::kIQ3_S);
STRATA_MATMUL_HOT_BENCH(iq3_xxs, DType::kIQ3_XXS);
STRATA_MATMUL_HOT_BENCH(iq2_xxs, DType::kIQ2_XXS);
STRATA_MATMUL_HOT_BENCH(iq2_xs, DType::kIQ2_XS);
STRATA_MATMUL_HOT_BENCH(iq2_s, DType::kIQ2_S);
STRATA_MATMUL_HOT_BENCH(iq1_s, DType::kIQ1_S);
STRATA_MATMUL_HOT_BENCH(tq1_0, DType::kTQ1_0);
STRATA_MATMUL_HOT_BENCH(tq2_0, DType::kTQ2_0);

// threads:1 is the fairer figure on a busy machine: its CPU time is the whole step's.
void decode_shapes(benchmark::internal::Benchmark* b) {
  for (int rows : {1, 8, 64}) b->Args({rows, kThreads});
  // A decode window of 1 to 4 (and 8) sequences on one thread: the small tiles of the packed
  // kernels, 3 and 8 being a remainder tile and two whole tiles.
  for (int rows : {1, 2, 3, 4, 8}) b->Args({rows, 1});
  b->ArgNames({"rows", "threads"})->UseRealTime()->MinTime(1.0)->Unit(benchmark::kMillisecond);
}

BENCHMARK_CAPTURE(BM_TinyLlamaDecode, q8_0, DType::kQ8_0, DType::kQ8_0, DType::kQ8_0)->Apply(decode_shapes);
// Q4_K_M keeps ffn_down and the output in Q6_K.
BENCHMARK_CAPTURE(BM_TinyLlamaDecode, q4_K_M, DType::kQ4_K, DType::kQ6_K, DType::kQ6_K)->Apply(decode_shapes);
// IQ3_S (llama.cpp's mix keeps attn_v in Q4_K, here IQ3_S too, and the output in Q6_K): a
// lattice type whose decode is bound by its grid lookups, not by DRAM.
BENCHMARK_CAPTURE(BM_TinyLlamaDecode, iq3_s, DType::kIQ3_S, DType::kIQ3_S, DType::kQ6_K)->Apply(decode_shapes);
BENCHMARK(BM_ReadBandwidth)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace strata::kernels

BENCHMARK_MAIN();
