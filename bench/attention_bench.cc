// Attention microbenchmarks at decode depth: one decode row of a TinyLlama-1.1B-shaped model
// (32 query heads, 4 kv heads, head_dim 64, 16-token K/V blocks) attending over `depth`
// positions in every one of `layers` layers, one thread, K/V laid out as the engine's block
// pool lays it out (a block holds all layers; per layer a K half then a V half, one token's
// kv heads side by side). GB/s is K/V bytes read per CPU second (CPU time, so a busy machine
// slows it less than wall time would).
//
//   build/bench/strata_attention_bench --benchmark_filter='f16/depth:4096'
//   STRATA_KERNELS=avx2 build/bench/strata_attention_bench
//
// layers 1 keeps one layer's K/V in the L2 cache (the kernel's own speed); layers 22 is a
// whole decode step's attention (at depth 4096, 92 MB of f16 K/V: from DRAM). evict_mb:64
// reads 64 MB between layers, untimed, as a decode step streams its weights between two
// layers' attention: K/V then comes from DRAM at depth 512 too (11 MB would stay in L3).
// f16_16x128 is qwen2moe's shape (16 kv heads of 128, one query head each; 8 layers as
// /tmp/qwen15moe-l8-q4k.gguf): each kv head reads 256 bytes of every 4 KB token row.
// f16_32x8x128 and q8_0_32x8x128 are Llama-3-8B / Mixtral's shape (8 kv heads of 128, four
// query heads each; 8 layers).
// heads_per_call (0: all) calls attention_kv_heads() on that many kv heads at a time, as the
// model's work items split a decode row's heads over its threads (heads_per_call 1: one
// walk per kv head, as before the walks took several).
// PrefillAttention times one layer of a 128-row prompt chunk at depth 4096 on the prefill tile
// path, in tiles of 8 rows up to the whole chunk (the model's at 2 threads: 32 rows at
// TinyLlama's heads, 64 at Llama 3's):
//   STRATA_KERNELS=avx2 build/bench/strata_attention_bench --benchmark_filter=Prefill
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "base/aligned_buffer.h"
#include "kernels/kernels.h"

namespace strata::kernels {
namespace {

constexpr int kHead = 32;
constexpr int kHeadKv = 4;
constexpr int kHeadDim = 64;
constexpr int kBlockTokens = 16;

// Query heads, kv heads and head size of one model's attention.
struct HeadShape {
  int n_head;
  int n_head_kv;
  int head_dim;
};
constexpr HeadShape kTinyLlama{kHead, kHeadKv, kHeadDim};
// qwen2moe (Qwen1.5-MoE-A2.7B): one query head per kv head, 16 of 128.
constexpr HeadShape kQwen2Moe{16, 16, 128};
// Llama-3-8B / Mixtral-8x7B: four query heads per kv head, 8 of 128.
constexpr HeadShape kLlama3{32, 8, 128};
// Gemma 3 4B (and 12B's grouping): two query heads per kv head, 4 of 256; Gemma 3 1B: four
// query heads over one kv head of 256.
constexpr HeadShape kGemma3_4b{8, 4, 256};
constexpr HeadShape kGemma3_1b{4, 1, 256};
// Gemma 3 27B: two query heads per kv head, 16 of 128.
constexpr HeadShape kGemma3_27b{32, 16, 128};

// Pseudo-random floats in [-1, 1) (the arithmetic does not depend on the values).
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

// One sequence's K/V cache of n_layers layers at depth n_tokens, in a contiguous block pool.
struct DecodeKv {
  HeadShape shape = kTinyLlama;
  AlignedBuffer pool;
  size_t token_bytes = 0;
  size_t layer_bytes = 0;
  size_t block_bytes = 0;
  int n_blocks = 0;
  std::vector<std::vector<const void*>> k_blocks, v_blocks;  // per layer

  DecodeKv(DType type, int n_tokens, int n_layers, HeadShape head_shape = kTinyLlama) : shape(head_shape) {
    const int hd = shape.head_dim;
    token_bytes = *dtype_row_bytes(type, shape.n_head_kv * hd);
    layer_bytes = 2 * kBlockTokens * token_bytes;
    block_bytes = n_layers * layer_bytes;
    n_blocks = (n_tokens + kBlockTokens - 1) / kBlockTokens;
    pool.resize(block_bytes * n_blocks);
    const size_t head_bytes = token_bytes / shape.n_head_kv;
    const std::vector<float> x = pseudo_random_floats(hd * 251, 1);
    size_t at = 0;
    for (size_t off = 0; off + head_bytes <= pool.size(); off += head_bytes, at = (at + hd) % (x.size() - hd)) {
      store_kv(&x[at], hd, type, pool.data() + off);
    }
    k_blocks.resize(n_layers);
    v_blocks.resize(n_layers);
    for (int l = 0; l < n_layers; ++l) {
      for (int b = 0; b < n_blocks; ++b) {
        const std::byte* base = pool.data() + b * block_bytes + l * layer_bytes;
        k_blocks[l].push_back(base);
        v_blocks[l].push_back(base + kBlockTokens * token_bytes);
      }
    }
  }

  AttentionArgs args(int layer, int n_tokens, DType type) const {
    AttentionArgs a;
    a.block_k = k_blocks[layer].data();
    a.block_v = v_blocks[layer].data();
    a.block_tokens = kBlockTokens;
    a.token_stride_bytes = token_bytes;
    a.n_tokens = n_tokens;
    a.n_head = shape.n_head;
    a.n_head_kv = shape.n_head_kv;
    a.head_dim = shape.head_dim;
    a.kv_type = type;
    a.scale = 1.0f / std::sqrt(static_cast<float>(shape.head_dim));
    return a;
  }
};

// Reads every cache line of buf (what a decode step's weight stream does to the caches).
void evict_caches(const std::vector<uint64_t>& buf) {
  uint64_t sum = 0;
  for (size_t i = 0; i < buf.size(); i += 8) sum += buf[i];
  benchmark::DoNotOptimize(sum);
}

void BM_DecodeAttention(benchmark::State& state, DType type, HeadShape shape = kTinyLlama) {
  const int depth = static_cast<int>(state.range(0));
  const int n_layers = static_cast<int>(state.range(1));
  const std::vector<uint64_t> evict(static_cast<size_t>(state.range(2)) << 17, 1);
  const int heads_per_call = state.range(3) > 0 ? static_cast<int>(state.range(3)) : shape.n_head_kv;
  const DecodeKv kv(type, depth, n_layers, shape);
  const std::vector<float> q = pseudo_random_floats(static_cast<size_t>(shape.n_head) * shape.head_dim, 2);
  std::vector<float> out(q.size());
  std::vector<AttentionArgs> args;
  for (int l = 0; l < n_layers; ++l) args.push_back(kv.args(l, depth, type));
  std::vector<float> scratch(attention_scratch_floats(args[0]));
  for (auto _ : state) {
    for (const AttentionArgs& a : args) {
      if (!evict.empty()) {
        state.PauseTiming();
        evict_caches(evict);
        state.ResumeTiming();
      }
      for (int h = 0; h < shape.n_head_kv; h += heads_per_call) {
        attention_kv_heads(a, q.data(), out.data(), scratch.data(), h, std::min(heads_per_call, shape.n_head_kv - h));
      }
    }
    benchmark::DoNotOptimize(out.data());
  }
  const double kv_bytes = 2.0 * depth * kv.token_bytes * n_layers;
  state.counters["GB/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * kv_bytes / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(active_isa());
}

void decode_depths(benchmark::internal::Benchmark* b) {
  b->ArgNames({"depth", "layers", "evict_mb", "heads_per_call"});
  for (int depth : {512, 4096}) {
    b->Args({depth, 1, 0, 0});
    b->Args({depth, 22, 0, 0});
    b->Args({depth, 22, 64, 0});
    b->Args({depth, 22, 64, 2});
    b->Args({depth, 22, 64, 1});
  }
  b->Unit(benchmark::kMicrosecond)->MinTime(0.5);
}

BENCHMARK_CAPTURE(BM_DecodeAttention, f16, DType::kF16)->Apply(decode_depths);
BENCHMARK_CAPTURE(BM_DecodeAttention, q8_0, DType::kQ8_0)->Apply(decode_depths);
// qwen2moe's shape (16 kv heads of 128, one query head each), 8 layers as the l8 test file.
BENCHMARK_CAPTURE(BM_DecodeAttention, f16_16x128, DType::kF16, kQwen2Moe)
    ->ArgNames({"depth", "layers", "evict_mb", "heads_per_call"})
    ->Args({512, 1, 0, 0})
    ->Args({512, 8, 64, 0})
    ->Args({512, 8, 64, 8})
    ->Args({512, 8, 64, 4})
    ->Args({512, 8, 64, 1})
    ->Args({4096, 8, 64, 0})
    ->Args({4096, 8, 64, 4})
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.5);

// Gemma 3's shapes at its windows' depths (1024 keys in the 4B's sliding layers, 512 in the
// 1B's) and at 4096 (their global layers), 8 layers; the 4B's decode items at 2 threads hold
// one kv head each (heads_per_call 1).
BENCHMARK_CAPTURE(BM_DecodeAttention, f16_8x4x256, DType::kF16, kGemma3_4b)
    ->ArgNames({"depth", "layers", "evict_mb", "heads_per_call"})
    ->Args({1024, 1, 0, 1})
    ->Args({1024, 8, 64, 1})
    ->Args({4096, 8, 64, 1})
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.5);
BENCHMARK_CAPTURE(BM_DecodeAttention, f16_32x16x128, DType::kF16, kGemma3_27b)
    ->ArgNames({"depth", "layers", "evict_mb", "heads_per_call"})
    ->Args({1024, 1, 0, 0})
    ->Args({1024, 8, 64, 8})
    ->Args({4096, 8, 64, 8})
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.5);
BENCHMARK_CAPTURE(BM_DecodeAttention, f16_4x1x256, DType::kF16, kGemma3_1b)
    ->ArgNames({"depth", "layers", "evict_mb", "heads_per_call"})
    ->Args({512, 1, 0, 0})
    ->Args({4096, 8, 64, 0})
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.5);

// Llama-3 / Mixtral's shape (8 kv heads of 128, four query heads each), 8 layers; a decode
// row's items at 2 threads hold 4 kv heads (heads_per_call 4).
BENCHMARK_CAPTURE(BM_DecodeAttention, f16_32x8x128, DType::kF16, kLlama3)
    ->ArgNames({"depth", "layers", "evict_mb", "heads_per_call"})
    ->Args({512, 1, 0, 0})
    ->Args({512, 8, 64, 0})
    ->Args({512, 8, 64, 4})
    ->Args({512, 8, 64, 1})
    ->Args({4096, 8, 64, 0})
    ->Args({4096, 8, 64, 4})
    ->Args({4096, 8, 64, 1})
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.5);
BENCHMARK_CAPTURE(BM_DecodeAttention, q8_0_32x8x128, DType::kQ8_0, kLlama3)
    ->ArgNames({"depth", "layers", "evict_mb", "heads_per_call"})
    ->Args({512, 8, 64, 0})
    ->Args({512, 8, 64, 1})
    ->Args({4096, 8, 64, 0})
    ->Args({4096, 8, 64, 1})
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.5);

// A prefill step's attention in one layer: a chunk of `rows` prompt rows of one sequence
// whose last row sits at `depth` (row r attends over depth - rows + 1 + r positions, the
// causal mask inside the chunk), cut into tiles of `tile_rows` rows as the model cuts it
// (model_impl.h attention_tile_rows(): 64 to 256 row-heads per kv head, at least 8 rows).
// Rows per CPU second.
void BM_PrefillAttention(benchmark::State& state, DType type, HeadShape shape = kTinyLlama) {
  const int depth = static_cast<int>(state.range(0));
  const int rows = static_cast<int>(state.range(1));
  const int tile_rows = static_cast<int>(state.range(2));
  const DecodeKv kv(type, depth, 1, shape);
  const size_t row_floats = static_cast<size_t>(shape.n_head) * shape.head_dim;
  const std::vector<float> q = pseudo_random_floats(rows * row_floats, 2);
  std::vector<float> out(q.size());
  std::vector<int> row_tokens(rows);
  for (int r = 0; r < rows; ++r) row_tokens[r] = depth - rows + 1 + r;
  std::vector<AttentionArgs> tiles;
  for (int r0 = 0; r0 < rows; r0 += tile_rows) {
    AttentionArgs a = kv.args(0, row_tokens[std::min(rows, r0 + tile_rows) - 1], type);
    a.n_rows = std::min(tile_rows, rows - r0);
    a.row_tokens = row_tokens.data() + r0;
    tiles.push_back(a);
  }
  std::vector<float> scratch(attention_scratch_floats(tiles[0]));
  for (auto _ : state) {
    for (size_t i = 0; i < tiles.size(); ++i) {
      const size_t offset = i * tile_rows * row_floats;
      attention(tiles[i], q.data() + offset, out.data() + offset, scratch.data());
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["rows/s"] = benchmark::Counter(static_cast<double>(state.iterations()) * rows, benchmark::Counter::kIsRate);
  state.SetLabel(active_isa());
}

BENCHMARK_CAPTURE(BM_PrefillAttention, f16, DType::kF16)
    ->ArgNames({"depth", "rows", "tile_rows"})
    ->Args({4096, 128, 8})
    ->Args({4096, 128, 16})
    ->Args({4096, 128, 32})
    ->Args({4096, 128, 128})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5);
// Llama-3-8B's heads (four query heads per kv head of 128).
BENCHMARK_CAPTURE(BM_PrefillAttention, f16_32x8x128, DType::kF16, kLlama3)
    ->ArgNames({"depth", "rows", "tile_rows"})
    ->Args({4096, 128, 8})
    ->Args({4096, 128, 16})
    ->Args({4096, 128, 32})
    ->Args({4096, 128, 64})
    ->Args({4096, 128, 128})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5);

}  // namespace
}  // namespace strata::kernels

BENCHMARK_MAIN();
