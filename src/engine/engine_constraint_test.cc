// Constrained requests (GenerateRequest::constraint) on the random-weight stories260K model,
// whose unmasked output is noise: every output follows its grammar and ends when complete, and
// a constrained row samples the same bytes alone and beside other rows.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/engine_test_util.h"
#include "grammar/gbnf_parser.h"
#include "grammar/grammar_matcher.h"
#include "grammar/json_schema.h"
#include "tokenizer/tokenizer.h"

namespace strata::testing {
namespace {

std::shared_ptr<const grammar::CompiledGrammar> compile_schema(const std::string& schema) {
  Result<std::string> gbnf = grammar::json_schema_to_gbnf(grammar::SchemaJson::parse(schema));
  EXPECT_TRUE(gbnf.ok()) << gbnf.status().ToString();
  Result<grammar::Grammar> g = grammar::parse_gbnf(*gbnf);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return *grammar::CompiledGrammar::Compile(*g);
}

const char* kSchema = R"({"type": "object", "properties": {
    "name": {"type": "string", "maxLength": 12},
    "n": {"type": "integer", "minimum": 0, "maximum": 999},
    "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 3}},
  "required": ["name", "n"]})";

GenerateRequest constrained(uint32_t seed, std::shared_ptr<const grammar::CompiledGrammar> g) {
  GenerateRequest r = make_request(6, 400, seed);
  r.ignore_eos = false;
  r.sampling.temperature = 1.0f;
  r.sampling.seed = seed;
  r.constraint = std::move(g);
  return r;
}

// The output's bytes as the grammar saw them (end-of-generation tokens have none).
std::string output_bytes(const Tokenizer& tokenizer, const Output& out) {
  std::string bytes;
  for (int32_t t : out.tokens) {
    if (!tokenizer.is_eog(t)) bytes += tokenizer.token_to_piece(t);
  }
  return bytes;
}

TEST(EngineConstraint, OutputsFollowTheGrammarAndEndWhenComplete) {
  auto g = compile_schema(kSchema);
  Harness h(EngineOptions{});
  ASSERT_TRUE(h.ok());
  for (uint32_t seed = 0; seed < 24; ++seed) {
    Output out = h.wait(h.submit(constrained(seed, g)));
    const std::string bytes = output_bytes(h.engine().tokenizer(), out);
    EXPECT_EQ(out.done.finish, FinishReason::kStop) << bytes;
    grammar::GrammarMatcher m(g);
    EXPECT_TRUE(m.accept(bytes) && m.accepting()) << bytes;
    nlohmann::json value = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(value.is_object()) << bytes;
    EXPECT_TRUE(value["name"].is_string() && value["n"].is_number_integer()) << bytes;
    EXPECT_EQ(out.text, bytes);
  }
}

TEST(EngineConstraint, ConstrainedRowsAreExactAloneAndBesideOthers) {
  auto g = compile_schema(kSchema);
  std::vector<GenerateRequest> rs = {constrained(7, g), make_request(9, 24, 3), constrained(8, g),
                                     make_request(5, 24, 4)};
  rs[1].sampling.temperature = 1.0f;
  EngineOptions o;
  o.n_parallel = 4;
  std::vector<Output> solo;
  for (const GenerateRequest& r : rs) solo.push_back(run_solo(r));
  Harness h(o);
  ASSERT_TRUE(h.ok());
  std::vector<RequestId> ids;
  for (const GenerateRequest& r : rs) ids.push_back(h.submit(r));
  for (size_t i = 0; i < rs.size(); ++i) expect_identical(h.wait(ids[i]), solo[i], "request " + std::to_string(i));
}

TEST(EngineConstraint, ConstraintOnAGbnfGrammar) {
  Result<grammar::Grammar> parsed = grammar::parse_gbnf(R"(root ::= ("yes" | "no") "." [0-9]{2})");
  ASSERT_TRUE(parsed.ok());
  auto g = *grammar::CompiledGrammar::Compile(*parsed);
  Harness h(EngineOptions{});
  ASSERT_TRUE(h.ok());
  for (uint32_t seed = 0; seed < 8; ++seed) {
    Output out = h.wait(h.submit(constrained(seed, g)));
    const std::string bytes = output_bytes(h.engine().tokenizer(), out);
    EXPECT_TRUE(bytes.size() == 5 || bytes.size() == 6) << bytes;
    EXPECT_TRUE(bytes.starts_with("yes.") || bytes.starts_with("no.")) << bytes;
  }
}

}  // namespace
}  // namespace strata::testing
