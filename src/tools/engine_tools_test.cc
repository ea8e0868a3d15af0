// The drivers behind batch-test, park-test and bench --concurrency.
#include <gtest/gtest.h>

#include "engine/engine_test_util.h"
#include "gguf/gguf_file.h"
#include "tokenizer/tokenizer.h"
#include "tools/batch_runner.h"
#include "tools/bench_prompts.h"
#include "tools/engine_bench.h"

namespace strata::testing {
namespace {

TEST(BatchRunner, RecordsTokensLogitsHashesAndTimes) {
  BatchRunner runner;
  EngineOptions o;
  o.model_path = stories_path();
  o.n_parallel = 2;
  o.n_threads = 1;
  runner.attach(&o);
  auto engine = std::move(Engine::Create(o)).value();
  std::vector<BatchJob> jobs = {{make_request(10, 5, 1)}, {make_request(20, 7, 2), 0.001}};
  auto outs = runner.run(*engine, jobs);
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].tokens.size(), 5u);
  EXPECT_EQ(outs[1].logits_hashes.size(), 7u);
  EXPECT_GE(outs[1].slot, 0);
  EXPECT_GT(outs[0].ttft_s(), 0.0);
  EXPECT_GE(outs[0].finished_s, outs[0].first_token_s);
  auto again = runner.run(*engine, {jobs[0]});
  EXPECT_EQ(first_difference(again[0], outs[0]), -1);
  BatchOutcome changed = again[0];
  changed.logits_hashes[3] ^= 1;
  EXPECT_EQ(first_difference(changed, outs[0]), 3);
  changed = again[0];
  changed.tokens.pop_back();
  EXPECT_EQ(first_difference(changed, outs[0]), 4);
  engine->shutdown(1.0);
}

TEST(BenchPrompts, HaveTheAskedLengthAndDistinctOpenings) {
  auto gguf = GgufFile::Open(stories_path());
  ASSERT_TRUE(gguf.ok());
  auto tok = std::move(Tokenizer::FromGguf(*gguf)).value();
  auto a = bench_prompt(*tok, 1, 100);
  auto b = bench_prompt(*tok, 2, 100);
  EXPECT_EQ(a.size(), 100u);
  EXPECT_EQ(a[0], tok->bos());
  EXPECT_NE(std::vector<int32_t>(a.begin(), a.begin() + 16), std::vector<int32_t>(b.begin(), b.begin() + 16));
  EXPECT_EQ(bench_prompt(*tok, 1, 100), a);
  EXPECT_FALSE(bench_turn(*tok, 0).empty());
}

TEST(EngineBench, ParsesConcurrencyLists) {
  EXPECT_EQ(*parse_int_list("1,2,4,8", "--concurrency"), (std::vector<int>{1, 2, 4, 8}));
  auto bad = parse_int_list("1,x", "--concurrency");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'x'"), std::string::npos);
  EXPECT_FALSE(parse_int_list("", "--concurrency").ok());
  EXPECT_FALSE(parse_int_list("0", "--concurrency").ok());
}

TEST(EngineBench, ParsesLayoutsJoinedOrPipelined) {
  auto l = parse_layouts("1x1,2x2,2x4p", "--layouts");
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  ASSERT_EQ(l->size(), 3u);
  EXPECT_EQ((*l)[1].n_stages, 2);
  EXPECT_EQ((*l)[1].n_groups, 2);
  EXPECT_TRUE((*l)[1].join_groups);
  EXPECT_EQ((*l)[2].n_groups, 4);
  EXPECT_FALSE((*l)[2].join_groups);
  for (const char* bad : {"2x", "x2", "2x2q", "2x2pp", "0x1", "1x1,", "two"}) {
    auto r = parse_layouts(bad, "--layouts");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--layouts"), std::string::npos) << r.status().message();
  }
}

TEST(EngineBench, MeasuresEveryLayoutAndTheCachedFollowUp) {
  EngineBenchOptions o;
  o.model_path = stories_path();
  o.concurrency = {1, 2};
  o.layouts = {{1, 1}, {2, 2, true}, {2, 2, false}, {9, 1}};  // 5 layers: 9 stages are refused
  o.max_new = 4;
  o.prompt_tokens = 20;
  o.cache_prompt_tokens = 100;
  o.n_threads = 2;
  auto r = run_engine_bench(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->runs.size(), 6u);
  EXPECT_EQ(r->runs[3].n_stages, 2);
  EXPECT_EQ(r->runs[3].concurrency, 2);
  EXPECT_EQ(r->runs[3].n_tokens, 8);
  EXPECT_FALSE(r->runs[0].joined_groups);  // one group: nothing to join
  EXPECT_TRUE(r->runs[3].joined_groups);
  EXPECT_FALSE(r->runs[5].joined_groups);
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_NE(r->notes[0].find("--stages 9"), std::string::npos);
  ASSERT_TRUE(r->has_cache);
  EXPECT_EQ(r->cache.cached_tokens, 96);
  EXPECT_GT(r->cache.restored_tokens, 96);
  EXPECT_TRUE(r->cache.identical);
  EXPECT_NE(format_engine_bench(*r).find("after restart"), std::string::npos);
  EXPECT_EQ(engine_bench_json(*r)["runs"].size(), 6u);
  EXPECT_EQ(engine_bench_json(*r)["runs"][5]["joined_groups"], false);
}

}  // namespace
}  // namespace strata::testing
