// The hot path allocates nothing: after make_scratch, forward passes (prompt chunks, decode
// steps, several sequences, several threads) never call operator new. This binary replaces
// the global operator new to count calls, so it holds only this test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <vector>

#include "model/contiguous_kv.h"
#include "model/model.h"
#include "model/test_model.h"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace strata {
namespace {

namespace fs = std::filesystem;

void check_no_allocations(const std::string& arch) {
  const fs::path dir = fs::temp_directory_path() / ("strata-model-alloc-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  testing::TestModelSpec spec;
  spec.arch = arch;
  spec.type = DType::kQ4_K;
  const std::string path = (dir / "m.gguf").string();
  ASSERT_TRUE(testing::write_test_model(spec, path).ok());
  auto model = Model::Load(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const Model& m = **model;

  ThreadPool pool(3);
  auto kv = std::move(ContiguousKv::Create(m.kv_layout(DType::kQ8_0, 16), 2, 64).value());
  const long at_start = g_allocations.load();
  auto scratch = m.make_scratch(32, 64);
  ASSERT_GT(g_allocations.load(), at_start) << "the counting operator new is not in use";
  std::vector<float> logits(static_cast<size_t>(32) * m.hparams().n_vocab);
  std::vector<Row> prompt, decode;
  for (int pos = 0; pos < 30; ++pos) prompt.push_back(Row{pos % 2, pos / 2, pos * 7, pos >= 28});
  for (int s = 0; s < 2; ++s) decode.push_back(Row{s, 15, 5, true});

  const long before = g_allocations.load();
  m.forward(prompt, *kv, logits.data(), *scratch, pool);
  for (int step = 0; step < 4; ++step) {
    for (Row& r : decode) ++r.pos;
    m.forward(decode, *kv, logits.data(), *scratch, pool);
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
  fs::remove_all(dir);
}

// qwen2 (biases), gemma3 (post-norms, GELU, and rows past its 10-key window), gpt-oss (sinks,
// expert biases, the clamped SwiGLU), and the hybrids' recurrent layers (qwen35's delta-nets,
// granitehybrid's Mamba-2 layers: rows ordered per sequence, states in the cache; falcon-h1's
// beside attention).
TEST(ForwardAllocTest, ForwardPassesAllocateNothing) {
  for (const char* arch : {"qwen2", "gemma3", "gpt-oss", "qwen35", "granitehybrid", "falcon-h1"}) {
    SCOPED_TRACE(arch);
    check_no_allocations(arch);
  }
}

}  // namespace
}  // namespace strata
