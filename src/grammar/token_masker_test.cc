#include "grammar/token_masker.h"

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
  GrammarMatcher m = matcher_for(R"(root ::= "a" "b"* "c")");
  EXPECT_EQ(allowed(masker.mask(m), 9), (std::vector<int32_t>{1, 2, 3, 7}));
  ASSERT_TRUE(m.accept("ab"));
  EXPECT_EQ(allowed(masker.mask(m), 9), (std::vector<int32_t>{4, 6}));
}

TEST(TokenMasker, EndTokensOnlyWhenTheGrammarAccepts) {
  TokenMasker masker(vocab());
  GrammarMatcher m = matcher_for(R"(root ::= "a" "b"?)");
  ASSERT_TRUE(m.accept("a"));
  EXPECT_EQ(allowed(masker.mask(m), 9), (std::vector<int32_t>{4, 8}));
  ASSERT_TRUE(m.accept("b"));
  EXPECT_EQ(allowed(masker.mask(m), 9), (std::vector<int32_t>{8}));
}

// The cache answers by state: the same state gives the same mask as a fresh computation.
TEST(TokenMasker, CachedMasksEqualFreshOnes) {
  TokenMasker masker(vocab());
  GrammarMatcher m = matcher_for(R"(root ::= [ab]* "c")");
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
