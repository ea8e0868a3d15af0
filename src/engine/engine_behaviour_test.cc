// Engine contracts other than exactness: errors at submit, queue bound, cancellation,
// observer callbacks and snapshots.
#include <gtest/gtest.h>

#include "engine/engine_test_util.h"

namespace strata::testing {
namespace {

EngineOptions options(int parallel) {
  EngineOptions o;
  o.n_parallel = parallel;
  return o;
}

TEST(EngineErrors, GroupsThatDoNotDivideParallelFailAtCreate) {
  EngineOptions o = options(4);
  o.model_path = stories_path();
  o.n_stages = 2;
  o.n_groups = 3;
  auto e = Engine::Create(o);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(), "--batch-groups 3 does not divide --parallel 4");
}

TEST(EngineErrors, Q8KvOnAHeadDimNotMultipleOf32FailsAtCreate) {
  EngineOptions o = options(1);
  o.model_path = stories_path();
  o.kv_type = "q8_0";
  auto e = Engine::Create(o);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("head_dim is 8"), std::string::npos) << e.status().message();
}

TEST(EngineErrors, MissingModelIsAnError) {
  EngineOptions o = options(1);
  o.model_path = "/nonexistent/model.gguf";
  EXPECT_FALSE(Engine::Create(o).ok());
}

TEST(EngineErrors, PromptPlusMaxTokensBeyondContextNamesBothNumbers) {
  EngineOptions o = options(1);
  o.n_ctx = 64;
  Harness h(o);
  auto r = h.engine().submit(make_request(60, 10, 1), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kOutOfRange);
  EXPECT_NE(r.status().message().find("60"), std::string::npos);
  EXPECT_NE(r.status().message().find("max_tokens 10"), std::string::npos);
  EXPECT_NE(r.status().message().find("64"), std::string::npos);
}

TEST(EngineErrors, EmptyPromptAndOutOfVocabTokensAreInvalid) {
  Harness h(options(1));
  GenerateRequest empty;
  EXPECT_EQ(h.engine().submit(empty, nullptr).status().code(), Code::kInvalidArgument);
  GenerateRequest bad = make_request(4, 4, 1);
  bad.prompt_tokens[2] = 100000;
  auto r = h.engine().submit(bad, nullptr);
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("100000"), std::string::npos);
}

TEST(EngineQueue, FullQueueIsResourceExhausted) {
  EngineOptions o = options(1);
  o.max_queue = 1;
  Harness h(o);
  RequestId running = h.submit(make_request(8, 400, 1));
  h.wait_tokens(running, 1);  // admitted: the queue is empty again
  RequestId queued = h.submit(make_request(8, 4, 2));
  auto refused = h.engine().submit(make_request(8, 4, 3), nullptr);
  EXPECT_EQ(refused.status().code(), Code::kResourceExhausted);
  EXPECT_NE(refused.status().message().find("--max-queue 1"), std::string::npos);
  h.engine().cancel(running);
  EXPECT_EQ(h.wait(queued).done.finish, FinishReason::kLength);
}

TEST(EngineCancel, RunningRequestEndsWithAbortAndFreesItsSlot) {
  Harness h(options(1));
  RequestId id = h.submit(make_request(8, 500, 1));
  h.wait_tokens(id, 3);
  h.engine().cancel(id);
  Output out = h.wait(id);
  EXPECT_EQ(out.done.kind, RequestEvent::Kind::kDone);
  EXPECT_EQ(out.done.finish, FinishReason::kAbort);
  EXPECT_LT(out.done.completion_tokens, 500);
  // The slot is free: the next request runs to completion.
  EXPECT_EQ(h.wait(h.submit(make_request(8, 3, 2))).done.finish, FinishReason::kLength);
}

TEST(EngineCancel, QueuedRequestEndsWithAbortAndNoTokens) {
  Harness h(options(1));
  RequestId running = h.submit(make_request(8, 500, 1));
  h.wait_tokens(running, 1);
  RequestId queued = h.submit(make_request(8, 5, 2));
  h.engine().cancel(queued);
  Output out = h.wait(queued);
  EXPECT_EQ(out.done.finish, FinishReason::kAbort);
  EXPECT_TRUE(out.tokens.empty());
  h.engine().cancel(running);
  h.wait(running);
}

TEST(EngineCancel, UnknownIdIsIgnored) {
  Harness h(options(1));
  h.engine().cancel(12345);
  EXPECT_EQ(h.wait(h.submit(make_request(8, 3, 2))).done.finish, FinishReason::kLength);
}

TEST(EngineShutdown, AbortsRunningAndQueuedRequests) {
  Harness h(options(1));
  RequestId running = h.submit(make_request(8, 1000, 1));
  h.wait_tokens(running, 1);
  RequestId queued = h.submit(make_request(8, 5, 2));
  h.engine().shutdown(0.0);
  EXPECT_EQ(h.wait(running).done.finish, FinishReason::kAbort);
  EXPECT_EQ(h.wait(queued).done.finish, FinishReason::kAbort);
  EXPECT_EQ(h.engine().submit(make_request(8, 5, 3), nullptr).status().code(), Code::kCancelled);
}

TEST(EngineObserver, ReportsQueueTokensStepsAndFinishedRecords) {
  Harness h(options(2));
  RequestId a = h.submit(make_request(10, 5, 1));
  RequestId b = h.submit(make_request(20, 7, 2));
  h.wait(a);
  h.wait(b);
  h.engine().shutdown(1.0);
  RecordingObserver& o = h.observer();
  std::lock_guard<std::mutex> lock(o.mu);
  EXPECT_EQ(o.n_queued, 2);
  EXPECT_EQ(o.n_tokens, 12);
  EXPECT_EQ(o.n_first_tokens, 2);
  ASSERT_EQ(o.records.size(), 2u);
  int rows = 0;
  for (const StepRecord& s : o.steps) rows += s.n_rows;
  EXPECT_EQ(rows, 10 + 20 + (5 - 1) + (7 - 1));  // every prompt row once, then one row per later token
  for (const RequestRecord& r : o.records) {
    EXPECT_EQ(r.finish, FinishReason::kLength);
    EXPECT_LE(r.arrival_s, r.scheduled_s);
    EXPECT_LE(r.scheduled_s, r.first_token_s);
    EXPECT_LE(r.first_token_s, r.finished_s);
    EXPECT_GE(r.slot, 0);
    EXPECT_EQ(r.generated_tokens, r.max_tokens);
  }
}

TEST(EngineSnapshot, DescribesSlotsGroupsAndKv) {
  EngineOptions o = options(4);
  o.n_stages = 2;
  o.n_threads = 2;
  Harness h(o);
  RequestId id = h.submit(make_request(40, 3, 1));
  h.wait(id);
  EngineSnapshot s = h.engine().snapshot();
  EXPECT_EQ(s.n_parallel, 4);
  EXPECT_EQ(s.n_groups, 2);
  EXPECT_EQ(s.n_stages, 2);
  ASSERT_EQ(s.slots.size(), 4u);
  EXPECT_EQ(s.slots[0].group, 0);
  EXPECT_EQ(s.slots[1].group, 0);
  EXPECT_EQ(s.slots[2].group, 1);
  EXPECT_EQ(s.slots[3].group, 1);
  EXPECT_EQ(s.n_running, 0);
  EXPECT_EQ(s.kv.block_tokens, 16);
  EXPECT_EQ(s.kv.blocks_cached, 2);  // 42 computed positions: 2 full blocks kept
  EXPECT_EQ(s.kv.blocks_used, 0);
  EXPECT_EQ(s.kv.dtype, "f16");
  ASSERT_EQ(s.stage_busy_s.size(), 2u);
  EXPECT_GT(s.stage_busy_s[0], 0.0);
  EXPECT_GT(s.steps, 0u);
  EXPECT_EQ(s.arch, "llama");
}

TEST(EngineSnapshot, GroupBusyTimeGrowsOnlyForGroupsThatRanWindows) {
  for (bool join : {true, false}) {
    EngineOptions o = options(4);
    o.n_stages = 2;
    o.n_groups = 2;
    o.n_threads = 2;
    o.join_groups = join;
    Harness h(o);
    RequestId id = h.submit(make_request(40, 3, 1));
    h.wait(id);
    h.engine().shutdown(1.0);  // every step has reached the observer
    EngineSnapshot s = h.engine().snapshot();
    EXPECT_EQ(s.joined_groups, join);
    ASSERT_EQ(s.group_busy_s.size(), 2u);
    std::vector<int> windows = h.observer().windows_per_group(2);
    // One request sits in one group; the other group never had an active slot.
    ASSERT_EQ((windows[0] > 0) + (windows[1] > 0), 1);
    for (int g = 0; g < 2; ++g) {
      if (windows[g] > 0) {
        EXPECT_GT(s.group_busy_s[g], 0.0) << "group " << g << " join " << join;
      } else {
        EXPECT_EQ(s.group_busy_s[g], 0.0) << "group " << g << " join " << join;
      }
    }
  }
}

TEST(EngineSnapshot, AJoinedWindowSharesItsTimeAmongItsGroups) {
  EngineOptions o = options(4);
  o.n_stages = 2;
  o.n_groups = 2;
  o.n_threads = 2;
  Harness h(o);
  // The allocator puts the second request in the other group; both decode in joined windows.
  RequestId a = h.submit(make_request(30, 20, 1));
  RequestId b = h.submit(make_request(30, 20, 2));
  h.wait(a);
  h.wait(b);
  h.engine().shutdown(1.0);
  EngineSnapshot s = h.engine().snapshot();
  EXPECT_EQ(h.observer().max_groups_per_window(), 2);
  std::vector<int> windows = h.observer().windows_per_group(2);
  EXPECT_GT(windows[0], 0);
  EXPECT_GT(windows[1], 0);
  {
    std::lock_guard<std::mutex> lock(h.observer().mu);
    for (const StepRecord& step : h.observer().steps) EXPECT_EQ(step.group, -1);
  }
  ASSERT_EQ(s.group_busy_s.size(), 2u);
  EXPECT_GT(s.group_busy_s[0], 0.0);
  EXPECT_GT(s.group_busy_s[1], 0.0);
  // Shared, not counted twice: the groups add up to the stages (to the nanosecond).
  EXPECT_NEAR(s.group_busy_s[0] + s.group_busy_s[1], s.stage_busy_s[0] + s.stage_busy_s[1], 1e-8);
}

TEST(EngineSnapshot, GroupBusyTimeIsComputeTimeNotTimeInFlight) {
  // One stage and one group: the group's windows are exactly the stage's work, so the two
  // counters hold the same nanoseconds; time in flight would also count the hand-offs.
  Harness h(options(1));
  RequestId id = h.submit(make_request(20, 4, 1));
  h.wait(id);
  h.engine().shutdown(1.0);
  EngineSnapshot s = h.engine().snapshot();
  ASSERT_EQ(s.group_busy_s.size(), 1u);
  ASSERT_EQ(s.stage_busy_s.size(), 1u);
  EXPECT_GT(s.group_busy_s[0], 0.0);
  EXPECT_EQ(s.group_busy_s[0], s.stage_busy_s[0]);
}

}  // namespace
}  // namespace strata::testing
