#include "engine/engine_config_file.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

Result<EngineConfigFile> parse(const std::string& text) { return parse_engine_config(text, "/tmp/c.json"); }

TEST(EngineConfigFile, ReadsServeSettingsUnderTheFlagNames) {
  auto f = parse(R"({"strata_config": 1, "serve": {"threads": 3, "parallel": 8, "prefill-chunk": 64,
                    "stages": 2, "batch-groups": 2, "join-groups": false, "kv-type": "q8_0"}})");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->values.n_threads, 3);
  EXPECT_EQ(f->values.n_parallel, 8);
  EXPECT_EQ(f->values.prefill_chunk, 64);
  EXPECT_EQ(f->values.n_stages, 2);
  EXPECT_EQ(f->values.n_groups, 2);
  EXPECT_FALSE(f->values.join_groups);
  EXPECT_EQ(f->values.kv_type, "q8_0");
  EXPECT_EQ(f->keys, (std::vector<std::string>{"threads", "parallel", "prefill-chunk", "stages", "batch-groups",
                                               "join-groups", "kv-type"}));
}

TEST(EngineConfigFile, UnknownServeKeyIsNamed) {
  auto f = parse(R"({"serve": {"threads": 2, "thread": 2}})");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), Code::kInvalidArgument);
  EXPECT_NE(f.status().message().find("config /tmp/c.json: unknown key 'serve.thread'"), std::string::npos)
      << f.status().message();
}

TEST(EngineConfigFile, UnknownTopLevelKeyIsNamed) {
  auto f = parse(R"({"serve": {}, "parallel": 4})");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("unknown key 'parallel'"), std::string::npos) << f.status().message();
}

TEST(EngineConfigFile, WrongTypeOrRangeNamesTheKeyAndTheValue) {
  auto text = parse(R"({"serve": {"parallel": "eight"}})");
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("'serve.parallel' must be an integer in [1, 4096], not \"eight\""),
            std::string::npos)
      << text.status().message();
  auto zero = parse(R"({"serve": {"prefill-chunk": 0}})");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("'serve.prefill-chunk'"), std::string::npos);
  auto flag = parse(R"({"serve": {"join-groups": 1}})");
  ASSERT_FALSE(flag.ok());
  EXPECT_NE(flag.status().message().find("'serve.join-groups' must be true or false"), std::string::npos);
  auto kv = parse(R"({"serve": {"kv-type": "q4_0"}})");
  ASSERT_FALSE(kv.ok());
  EXPECT_NE(kv.status().message().find("'serve.kv-type' must be a string (one of f16, f32, q8_0)"), std::string::npos);
}

TEST(EngineConfigFile, NotJsonOrNoServeObjectIsAnError) {
  EXPECT_NE(parse("{threads: 2").status().message().find("is not valid JSON"), std::string::npos);
  EXPECT_NE(parse("[1]").status().message().find("must hold a JSON object"), std::string::npos);
  EXPECT_NE(parse(R"({"strata_config": 1})").status().message().find("'serve' must be an object"), std::string::npos);
}

TEST(EngineConfigFile, MissingFileIsNamed) {
  auto f = read_engine_config("/nonexistent/strata.json");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "config /nonexistent/strata.json: cannot be read");
}

TEST(EngineConfigFile, FlagsGivenOnTheCommandLineWinOverTheFile) {
  auto f = parse(R"({"serve": {"threads": 3, "parallel": 8, "prefill-chunk": 64}})");
  ASSERT_TRUE(f.ok());
  EngineOptions o;
  o.n_threads = 1;     // given as --threads 1
  o.max_queue = 7;     // given, and not in the file
  const EngineConfigApplied applied = apply_engine_config(*f, {"threads", "max-queue"}, &o);
  EXPECT_EQ(o.n_threads, 1);
  EXPECT_EQ(o.n_parallel, 8);
  EXPECT_EQ(o.prefill_chunk, 64);
  EXPECT_EQ(o.max_queue, 7);
  EXPECT_EQ(o.n_stages, 1);  // neither in the file nor given: the default
  EXPECT_EQ(applied.path, "/tmp/c.json");
  EXPECT_EQ(applied.from_file, (std::vector<std::string>{"parallel", "prefill-chunk"}));
  EXPECT_EQ(applied.overridden, (std::vector<std::string>{"threads"}));
}

TEST(EngineConfigFile, WrittenSettingsReadBackEqual) {
  EngineOptions o;
  o.n_threads = 2;
  o.n_parallel = 6;
  o.prefill_chunk = 512;
  o.n_stages = 2;
  o.n_groups = 3;
  o.join_groups = false;
  const std::vector<std::string> keys = {"threads", "parallel", "prefill-chunk", "stages", "batch-groups", "join-groups"};
  nlohmann::json doc = {{"serve", engine_config_json(o, keys)}};
  auto f = parse(doc.dump());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EngineOptions back;
  apply_engine_config(*f, {}, &back);
  EXPECT_EQ(back.n_threads, 2);
  EXPECT_EQ(back.n_parallel, 6);
  EXPECT_EQ(back.prefill_chunk, 512);
  EXPECT_EQ(back.n_stages, 2);
  EXPECT_EQ(back.n_groups, 3);
  EXPECT_FALSE(back.join_groups);
}

}  // namespace
}  // namespace strata
