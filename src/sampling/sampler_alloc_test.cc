// Proves the hot path allocates nothing: this test binary counts operator new calls made
// while a sample() call runs on the counting thread.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <new>
#include <vector>

#include "sampling/sampler.h"
#include "sampling/stop_matcher.h"

// GCC pairs the inlined std::allocator's ::operator new with our free() and warns; the
// replacement functions below are a matched malloc/free pair.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {
thread_local bool counting = false;
thread_local long n_allocations = 0;
}  // namespace

void* operator new(std::size_t size) {
  if (counting) ++n_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace strata {
namespace {

TEST(SamplerAllocation, TheCounterSeesAllocations) {
  counting = true;
  n_allocations = 0;
  std::vector<int> v(10);
  counting = false;
  EXPECT_EQ(n_allocations, 1);  // the vector's buffer
}

TEST(SamplerAllocation, SampleAllocatesNothing) {
  constexpr int kVocab = 5000;
  std::vector<float> logits(kVocab);
  for (int i = 0; i < kVocab; ++i) logits[i] = std::sin(0.37f * static_cast<float>(i)) * 4.0f;
  std::vector<int32_t> history = {1, 2, 3, 2, 1, 4000};
  Sampler s(kVocab);
  SamplingConfig config;
  config.temperature = 0.8f;
  config.top_k = 400;
  config.top_p = 0.9f;
  config.min_p = 0.01f;
  config.repeat_penalty = 1.1f;
  config.frequency_penalty = 0.2f;
  config.logit_bias = {{7, 2.0f}};
  config.n_top_logprobs = 5;
  TokenLogprob top[5];
  counting = true;
  n_allocations = 0;
  bool all_ok = true;
  for (int pos = 0; pos < 20; ++pos) all_ok = all_ok && s.sample(logits, config, history, pos, top).ok();
  config.temperature = 0.0f;
  all_ok = all_ok && s.sample(logits, config, history, 0, top).ok();
  counting = false;
  EXPECT_TRUE(all_ok);
  EXPECT_EQ(n_allocations, 0);
}

}  // namespace
}  // namespace strata
