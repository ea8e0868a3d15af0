#include "grammar/grammar_matcher.h"

#include <gtest/gtest.h>

#include "grammar/gbnf_parser.h"

namespace strata::grammar {
namespace {

GrammarMatcher matcher_for(const std::string& gbnf) {
  Result<Grammar> g = parse_gbnf(gbnf);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  auto compiled = CompiledGrammar::Compile(*g);
  EXPECT_TRUE(compiled.ok());
  return GrammarMatcher(*compiled);
}

TEST(GrammarMatcher, RefusedBytesLeaveTheStateAsItWas) {
  GrammarMatcher m = matcher_for(R"(root ::= "ab" | "ac")");
  EXPECT_TRUE(m.accept("a"));
  const std::string before = m.state_key();
  EXPECT_FALSE(m.accept("x"));
  EXPECT_EQ(m.state_key(), before);
  EXPECT_FALSE(m.accepting());
  EXPECT_TRUE(m.accept("c"));
  EXPECT_TRUE(m.accepting());
  EXPECT_FALSE(m.can_continue());
}

TEST(GrammarMatcher, NextBytesAreTheUnionOverStacks) {
  GrammarMatcher m = matcher_for(R"(root ::= "a" [0-9] | "a" "x")");
  ASSERT_TRUE(m.accept("a"));
  ByteSet next = m.next_bytes();
  EXPECT_TRUE(next.has('0') && next.has('9') && next.has('x'));
  EXPECT_FALSE(next.has('a'));
}

// Right recursion returns straight to the caller: a long repetition keeps the state small
// and the same after every item, which is what lets masks be cached by state.
TEST(GrammarMatcher, RepetitionKeepsTheStateConstant) {
  GrammarMatcher m = matcher_for(R"(root ::= "[" item* "]"
item ::= [a-z])");
  ASSERT_TRUE(m.accept("[a"));
  const std::string key = m.state_key();
  ASSERT_TRUE(m.accept("bcdefghijklmnop"));
  EXPECT_EQ(m.state_key(), key);
  EXPECT_TRUE(m.accept("]"));
  EXPECT_TRUE(m.accepting());
}

TEST(GrammarMatcher, AmbiguousGrammarsFollowEveryParse) {
  GrammarMatcher m = matcher_for(R"(root ::= a | b
a ::= "x"* "y"
b ::= "x" "x" "z")");
  ASSERT_TRUE(m.accept("xx"));
  GrammarMatcher y = m, z = m;
  EXPECT_TRUE(y.accept("y") && y.accepting());
  EXPECT_TRUE(z.accept("z") && z.accepting());
  EXPECT_FALSE(m.accept("xz"));
}

TEST(GrammarMatcher, EmptyRootAcceptsAtOnce) {
  GrammarMatcher m = matcher_for(R"(root ::= "" | "a")");
  EXPECT_TRUE(m.accepting());
  EXPECT_TRUE(m.can_continue());
}

}  // namespace
}  // namespace strata::grammar
