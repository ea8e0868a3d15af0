// `strata bench --json-schema`: the report on the stories260K model (its figures are speeds,
// never asserted; what is checked is that both runs happened, the mask replay matched the
// constrained output, and bad input gets an error naming it).
#include "tools/constrained_bench.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace strata {
namespace {

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}

ConstrainedBenchOptions small_options(const std::string& schema_path) {
  ConstrainedBenchOptions o;
  o.model_path = std::string(STRATA_SHARED_DIR) + "/models/stories260K.gguf";
  o.schema_path = schema_path;
  o.n_threads = 1;
  o.prompt_tokens = 8;
  o.max_new = 48;
  o.runs = 1;
  return o;
}

TEST(ConstrainedBench, ReportsPlainAndConstrainedDecodeAndTheMaskTimes) {
  const std::string schema = write_file("strata_constrained_bench_test.json",
                                        R"({"type": "object", "properties": {"n": {"type": "integer"},
                                            "ok": {"type": "boolean"}}, "required": ["n", "ok"]})");
  Result<ConstrainedBenchReport> r = run_constrained_bench(small_options(schema));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_GT(r->plain_tok_s, 0);
  EXPECT_GT(r->constrained_tok_s, 0);
  EXPECT_GT(r->constrained_tokens, 1);
  EXPECT_EQ(r->n_vocab, 512);
  EXPECT_GT(r->mask_mean_us, 0);
  const nlohmann::json j = constrained_bench_json(*r);
  for (const char* key : {"plain_tok_s", "constrained_tok_s", "ratio", "completed", "mask_us"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_NE(format_constrained_bench(*r).find("constrained decode"), std::string::npos);
}

TEST(ConstrainedBench, MissingOrBadSchemaFileIsAnErrorNamingIt) {
  Result<ConstrainedBenchReport> missing = run_constrained_bench(small_options("/nonexistent/schema.json"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/schema.json"), std::string::npos);
  const std::string bad = write_file("strata_constrained_bench_bad.json", R"({"type": "object", "dependentSchemas": {}})");
  Result<ConstrainedBenchReport> unsupported = run_constrained_bench(small_options(bad));
  ASSERT_FALSE(unsupported.ok());
  EXPECT_NE(unsupported.status().message().find("dependentSchemas"), std::string::npos) << unsupported.status().message();
  EXPECT_NE(unsupported.status().message().find(bad), std::string::npos) << unsupported.status().message();
}

}  // namespace
}  // namespace strata
