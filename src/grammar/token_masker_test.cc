#include "grammar/token_masker.h"

#include <gtest/gtest.h>

#include "grammar/gbnf_parser.h"

namespace strata::grammar {
namespace {

GrammarMatcher masker_matcher_for(const std::string& gbnf) {
  Result<Grammar> g = parse_gbnf(gbnf);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  auto compiled = CompiledGrammar::Compile(*g);
  EXPECT_TRUE(compiled.ok());
  return GrammarMatcher(*compiled);
}

std::vector<int32_t> allowed(std::span<const uint64_t> bits, int n_vocab) {
  std::vector<int32_t> out;
  for (int t = 0; t < n_vocab; ++t) {
    if ((bits[t >> 6] >> (t & 63)) & 1) out.push_back(t);
  }
  return out;
}

// 0 "", 1 "a", 2 "ab", 3 "abc", 4 "b", 5 "ba", 6 "c", 7 "ab" (a duplicate), 8 eos (no bytes)
std::shared_ptr<const TokenVocabulary> vocab() {
  return std::make_shared<TokenVocabulary>(std::vector<std::string>{"", "a", "ab", "abc", "b", "ba", "c", "ab", ""},
                                           std::vector<int32_t>{8});
}

TEST(TokenMasker, AllowsExactlyTheTokensWhoseBytesContinueTheGrammar) {
  TokenMasker masker(vocab());
  GrammarMatcher m = masker_matcher_for(R"(root ::= "a" "b"* "c")");
  EXPECT_EQ(allowed(masker.mask(m), 9), (std::vector<int32_t>{1, 2, 3, 7}));
  ASSERT_TRUE(m.accept("ab"));
  EXPECT_EQ(allowed(masker.mask(m), 9), (std::vector<int32_t>{4, 6}));
}

TEST(TokenMasker, EndTokensOnlyWhenTheGrammarAccepts) {
  TokenMasker masker(vocab());
  GrammarMatcher m = masker_matcher_for(R"(root ::= "a" "b"?)");
  ASSERT_TRUE(m.accept("a"));
  EXPECT_EQ(allowed(masker.mask(m), 9), (std::vector<int32_t>{4, 8}));
  ASSERT_TRUE(m.accept("b"));
  EXPECT_EQ(allowed(masker.mask(m), 9), (std::vector<int32_t>{8}));
}

// The cache answers by state: the same state gives the same mask as a fresh computation.
TEST(TokenMasker, CachedMasksEqualFreshOnes) {
  TokenMasker masker(vocab());
  GrammarMatcher m = masker_matcher_for(R"(root ::= [ab]* "c")");
  std::vector<uint64_t> fresh;
  for (const char* step : {"", "a", "b", "a"}) {
    ASSERT_TRUE(m.accept(step));
    std::span<const uint64_t> cached = masker.mask(m);
    masker.compute(m, &fresh);
    EXPECT_EQ(std::vector<uint64_t>(cached.begin(), cached.end()), fresh);
  }
}

}  // namespace
}  // namespace strata::grammar

namespace strata::grammar {
namespace {

// Every token of a vocabulary of all strings up to length 3 over a small alphabet, checked one
// by one with a fresh matcher: the trie walk must agree exactly.
TEST(TokenMasker, MaskEqualsCheckingEveryTokenAlone) {
  const std::string alphabet = "{}\":, a1\\";
  std::vector<std::string> tokens = {""};
  for (size_t len = 1; len <= 3; ++len) {
    std::vector<std::string> grown;
    for (const std::string& t : tokens) {
      if (t.size() != len - 1) continue;
      for (char c : alphabet) grown.push_back(t + c);
    }
    tokens.insert(tokens.end(), grown.begin(), grown.end());
  }
  tokens.push_back("");  // the end token
  const int32_t eos = static_cast<int32_t>(tokens.size()) - 1;
  auto vocab = std::make_shared<TokenVocabulary>(tokens, std::vector<int32_t>{eos});
  Result<Grammar> g = parse_gbnf(R"(root ::= "{" ws (pair ("," ws pair)*)? "}"
pair ::= "\"" [a1 ]{0,3} "\"" ws ":" ws ("1" | "a" | root)
ws ::= " "?)");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  GrammarMatcher m(*CompiledGrammar::Compile(*g));
  TokenMasker masker(vocab);
  std::vector<uint64_t> bits;
  for (const char* prefix : {"", "{", "\"", "a", "\"", " ", ":", "{", "}", "}"}) {
    ASSERT_TRUE(m.accept(prefix)) << prefix;
    masker.compute(m, &bits);
    for (int32_t t = 0; t < vocab->n_vocab(); ++t) {
      GrammarMatcher alone = m;
      const bool want = t == eos ? m.accepting() : !tokens[t].empty() && alone.accept(tokens[t]);
      EXPECT_EQ(((bits[t >> 6] >> (t & 63)) & 1) != 0, want) << "after '" << prefix << "' token '" << tokens[t] << "'";
    }
  }
}

}  // namespace
}  // namespace strata::grammar
