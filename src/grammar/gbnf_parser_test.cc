#include "grammar/gbnf_parser.h"

#include <gtest/gtest.h>

#include "grammar/grammar_builder.h"
#include "grammar/grammar_matcher.h"

namespace strata::grammar {
namespace {

// True when the grammar matches text completely.
bool matches(const std::string& gbnf, const std::string& text) {
  Result<Grammar> g = parse_gbnf(gbnf);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  if (!g.ok()) return false;
  auto compiled = CompiledGrammar::Compile(*g);
  EXPECT_TRUE(compiled.ok());
  GrammarMatcher m(*compiled);
  return m.accept(text) && m.accepting();
}

std::string gbnf_error_of(const std::string& gbnf) {
  Result<Grammar> g = parse_gbnf(gbnf);
  return g.ok() ? "" : std::string(g.status().message());
}

TEST(GbnfParser, LiteralsAlternativesAndGroups) {
  const std::string g = R"(root ::= "a" ("b" | "cd")+ end   # trailing comment
end ::= "!"
)";
  EXPECT_TRUE(matches(g, "ab!"));
  EXPECT_TRUE(matches(g, "acdbcd!"));
  EXPECT_FALSE(matches(g, "a!"));
  EXPECT_FALSE(matches(g, "ab"));
}

TEST(GbnfParser, RulesContinueOverLinesUntilTheNextDefinition) {
  const std::string g = "root ::= \"x\"\n   \"y\"\n  | \"z\"\nother ::= \"q\"\n";
  EXPECT_TRUE(matches(g, "xy"));
  EXPECT_TRUE(matches(g, "z"));
  EXPECT_FALSE(matches(g, "q"));
}

TEST(GbnfParser, ClassesCoverUtf8CodePoints) {
  const std::string g = R"(root ::= [^"\\]{2} [a-cé] .)";
  EXPECT_TRUE(matches(g, "xyb\xF0\x9F\x98\x80"));  // an emoji is one character
  EXPECT_TRUE(matches(g, "\xE4\xBD\xA0!" "\xC3\xA9" "z"));
  EXPECT_FALSE(matches(g, "\"yaz"));
  EXPECT_FALSE(matches(g, "xyd z"));
  EXPECT_FALSE(matches(g, "xy\xC3" "z"));  // a broken UTF-8 sequence is not a character
}

TEST(GbnfParser, BoundedRepetition) {
  const std::string g = R"(root ::= "a"{2,3} "b"{2} "c"{1,})";
  EXPECT_TRUE(matches(g, "aabbc"));
  EXPECT_TRUE(matches(g, "aaabbccc"));
  EXPECT_FALSE(matches(g, "abbc"));
  EXPECT_FALSE(matches(g, "aaaabbc"));
  EXPECT_FALSE(matches(g, "aabb"));
}

TEST(GbnfParser, EscapesInLiterals) {
  EXPECT_TRUE(matches(R"(root ::= "\"\\\n\x41\u00e9")", "\"\\\nA\xC3\xA9"));
}

TEST(GbnfParser, ErrorsNameWhatIsWrong) {
  EXPECT_NE(gbnf_error_of("root ::= \"a\" b").find("rule 'b' is used but never defined"), std::string::npos);
  EXPECT_NE(gbnf_error_of("start ::= \"a\"").find("no 'root' rule"), std::string::npos);
  EXPECT_NE(gbnf_error_of("root ::= root \"a\" | \"b\"").find("left-recursive"), std::string::npos);
  EXPECT_NE(gbnf_error_of("root ::= \"a").find("line 1 column"), std::string::npos);
  EXPECT_NE(gbnf_error_of("root ::= \"a\"\nroot ::= \"b\"").find("defined twice"), std::string::npos);
  EXPECT_NE(gbnf_error_of("root ::= [z-a]").find("reversed"), std::string::npos);
  EXPECT_NE(gbnf_error_of("root = \"a\"").find("'::='"), std::string::npos);
}

TEST(Utf8Ranges, SequencesCoverExactlyTheRange) {
  // 0x800..0xFFFF: E0 needs A0..BF next; E1..EF take any continuation.
  auto seqs = utf8_range_sequences(0x800, 0xFFFF);
  ASSERT_EQ(seqs.size(), 2u);
  EXPECT_EQ(seqs[0][0], std::make_pair(uint8_t{0xE0}, uint8_t{0xE0}));
  EXPECT_EQ(seqs[0][1], std::make_pair(uint8_t{0xA0}, uint8_t{0xBF}));
  EXPECT_EQ(seqs[1][0], std::make_pair(uint8_t{0xE1}, uint8_t{0xEF}));
}

}  // namespace
}  // namespace strata::grammar
