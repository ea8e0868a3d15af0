// What a request's callback receives: text, stop strings, EOS, logprobs.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/engine_test_util.h"

namespace strata::testing {
namespace {

GenerateRequest once_upon_a_time(int max_tokens) {
  std::ifstream f(std::string(STRATA_SHARED_DIR) + "/models/stories260K.golden.json");
  nlohmann::json golden = nlohmann::json::parse(f);
  GenerateRequest r;
  r.prompt_tokens = golden["prompt_ids_with_bos"].get<std::vector<int32_t>>();
  r.max_tokens = max_tokens;
  return r;
}

EngineOptions one_slot() {
  EngineOptions o;
  o.n_parallel = 1;
  return o;
}

TEST(EngineOutput, TextIsTheStoryContinuation) {
  Harness h(one_slot());
  Output out = h.wait(h.submit(once_upon_a_time(24)));
  EXPECT_EQ(out.text.rfind(", there was a little girl named Lily.", 0), 0u) << out.text;
  EXPECT_TRUE(out.done.text.empty());
}

TEST(EngineOutput, StopStringAcrossTokensEndsTheRequestBeforeIt) {
  GenerateRequest r = once_upon_a_time(40);
  r.stop = {"girl named"};
  Harness h(one_slot());
  Output out = h.wait(h.submit(r));
  EXPECT_EQ(out.text, ", there was a little ");
  EXPECT_EQ(out.done.finish, FinishReason::kStop);
  EXPECT_LT(out.done.completion_tokens, 40);
}

TEST(EngineOutput, HeldBackStopPrefixIsReleasedAtTheEnd) {
  // Find the length at which the story's text ends with "Lily": that could begin the stop
  // string "Lily." until the request ends by length.
  Harness h(one_slot());
  GenerateRequest r = once_upon_a_time(1);
  Output plain;
  for (; r.max_tokens <= 30; ++r.max_tokens) {
    plain = h.wait(h.submit(r));
    if (plain.text.ends_with("Lily")) break;
  }
  ASSERT_TRUE(plain.text.ends_with("Lily")) << plain.text;
  r.stop = {"Lily."};
  Output out = h.wait(h.submit(r));
  EXPECT_EQ(out.done.finish, FinishReason::kLength);
  EXPECT_EQ(out.text + out.done.text, plain.text);
  EXPECT_TRUE(out.done.text.ends_with("Lily")) << out.done.text;
}

TEST(EngineOutput, EosEndsTheRequestWithoutATokenEvent) {
  GenerateRequest r = once_upon_a_time(10);
  r.sampling.logit_bias = {{2, 1000.0f}};  // </s>
  Harness h(one_slot());
  Output out = h.wait(h.submit(r));
  EXPECT_EQ(out.done.finish, FinishReason::kStop);
  EXPECT_TRUE(out.tokens.empty());
  EXPECT_EQ(out.done.completion_tokens, 1);
}

TEST(EngineOutput, IgnoreEosKeepsGenerating) {
  GenerateRequest r = once_upon_a_time(5);
  r.sampling.logit_bias = {{2, 1000.0f}};
  r.ignore_eos = true;
  Harness h(one_slot());
  Output out = h.wait(h.submit(r));
  EXPECT_EQ(out.done.finish, FinishReason::kLength);
  EXPECT_EQ(out.tokens, std::vector<int32_t>(5, 2));
}

TEST(EngineOutput, LogprobsComeWithEveryToken) {
  GenerateRequest r = once_upon_a_time(4);
  r.sampling.logprobs = true;
  r.sampling.n_top_logprobs = 3;
  std::vector<RequestEvent> events;
  Harness h(one_slot());
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  auto id = h.engine().submit(r, [&](const RequestEvent& e) {
    std::lock_guard<std::mutex> lock(mu);
    events.push_back(e);
    done = e.kind != RequestEvent::Kind::kToken;
    cv.notify_all();
  });
  ASSERT_TRUE(id.ok());
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  ASSERT_EQ(events.size(), 5u);
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(events[i].top_logprobs.size(), 3u);
    EXPECT_EQ(events[i].top_logprobs[0].token, events[i].token);  // greedy takes the best
    EXPECT_EQ(events[i].top_logprobs[0].logprob, events[i].logprob);
    EXPECT_LT(events[i].logprob, 0.0f);
    EXPECT_GE(events[i].top_logprobs[0].logprob, events[i].top_logprobs[1].logprob);
  }
}

TEST(EngineOutput, BadSamplingFieldIsRejectedAtSubmit) {
  GenerateRequest r = once_upon_a_time(4);
  r.sampling.top_p = 1.5f;
  Harness h(one_slot());
  auto id = h.engine().submit(r, nullptr);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), Code::kInvalidArgument);
  EXPECT_NE(id.status().message().find("top_p"), std::string::npos);
}

}  // namespace
}  // namespace strata::testing
