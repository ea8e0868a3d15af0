#include "grammar/grammar_builder.h"

#include <algorithm>

#include <fmt/format.h>

namespace strata::grammar {

namespace {

using ByteRangeSeq = std::vector<std::pair<uint8_t, uint8_t>>;

constexpr uint32_t kMaxCodepoint = 0x10FFFF;

int encoded_length(uint32_t cp) { return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4; }

std::vector<uint8_t> encode(uint32_t cp) {
  const int n = encoded_length(cp);
  if (n == 1) return {static_cast<uint8_t>(cp)};
  std::vector<uint8_t> out(n);
  for (int i = n - 1; i > 0; --i) {
    out[i] = static_cast<uint8_t>(0x80 | (cp & 0x3F));
    cp >>= 6;
  }
  static constexpr uint8_t kLead[5] = {0, 0, 0xC0, 0xE0, 0xF0};
  out[0] = static_cast<uint8_t>(kLead[n] | cp);
  return out;
}

bool all_equal(const uint8_t* bytes, int n, uint8_t value) {
  return std::all_of(bytes, bytes + n, [value](uint8_t b) { return b == value; });
}

// Byte sequences between lo and hi (same length n), which UTF-8 orders like the code points.
void split_sequences(const uint8_t* lo, const uint8_t* hi, int n, ByteRangeSeq prefix,
                     std::vector<ByteRangeSeq>* out) {
  if (n == 1) {
    prefix.emplace_back(lo[0], hi[0]);
    out->push_back(std::move(prefix));
    return;
  }
  if (lo[0] == hi[0]) {
    prefix.emplace_back(lo[0], lo[0]);
    split_sequences(lo + 1, hi + 1, n - 1, std::move(prefix), out);
    return;
  }
  static constexpr uint8_t kMins[3] = {0x80, 0x80, 0x80};
  static constexpr uint8_t kMaxes[3] = {0xBF, 0xBF, 0xBF};
  int full_lo = lo[0], full_hi = hi[0];
  if (!all_equal(lo + 1, n - 1, 0x80)) {
    ByteRangeSeq p = prefix;
    p.emplace_back(lo[0], lo[0]);
    split_sequences(lo + 1, kMaxes, n - 1, std::move(p), out);
    ++full_lo;
  }
  const bool hi_partial = !all_equal(hi + 1, n - 1, 0xBF);
  if (hi_partial) --full_hi;
  if (full_lo <= full_hi) {
    ByteRangeSeq p = prefix;
    p.emplace_back(static_cast<uint8_t>(full_lo), static_cast<uint8_t>(full_hi));
    for (int i = 1; i < n; ++i) p.emplace_back(0x80, 0xBF);
    out->push_back(std::move(p));
  }
  if (hi_partial) {
    prefix.emplace_back(hi[0], hi[0]);
    split_sequences(kMins, hi + 1, n - 1, std::move(prefix), out);
  }
}

// Sorted, merged ranges with surrogates removed, complemented when negated.
std::vector<CodepointRange> normalize(std::vector<CodepointRange> ranges, bool negated) {
  std::sort(ranges.begin(), ranges.end());
  std::vector<CodepointRange> merged;
  for (const auto& r : ranges) {
    if (!merged.empty() && r.first <= merged.back().second + 1) {
      merged.back().second = std::max(merged.back().second, r.second);
    } else {
      merged.push_back(r);
    }
  }
  if (negated) {
    std::vector<CodepointRange> complement;
    uint32_t next = 0;
    for (const auto& r : merged) {
      if (r.first > next) complement.emplace_back(next, r.first - 1);
      next = r.second + 1;
    }
    if (next <= kMaxCodepoint) complement.emplace_back(next, kMaxCodepoint);
    merged = std::move(complement);
  }
  std::vector<CodepointRange> out;
  for (auto [lo, hi] : merged) {
    hi = std::min(hi, kMaxCodepoint);
    if (lo > hi) continue;
    if (lo < 0xD800 && hi >= 0xD800) {
      out.emplace_back(lo, 0xD7FF);
      lo = 0xE000;
    } else if (lo >= 0xD800 && lo <= 0xDFFF) {
      lo = 0xE000;
    }
    if (lo <= hi) out.emplace_back(lo, hi);
  }
  return out;
}

}  // namespace

std::vector<ByteRangeSeq> utf8_range_sequences(uint32_t lo, uint32_t hi) {
  std::vector<ByteRangeSeq> out;
  const std::vector<uint8_t> a = encode(lo), b = encode(hi);
  split_sequences(a.data(), b.data(), static_cast<int>(a.size()), {}, &out);
  return out;
}

GrammarBuilder::GrammarBuilder() { rule_id("root"); }

uint32_t GrammarBuilder::rule_id(const std::string& name) {
  auto [it, inserted] = ids_.emplace(name, static_cast<uint32_t>(grammar_.rules.size()));
  if (inserted) {
    grammar_.rules.push_back({name, {}});
    defined_.push_back(false);
  }
  return it->second;
}

Status GrammarBuilder::define(uint32_t id, std::vector<Alternative> alternatives) {
  if (defined_[id]) {
    return Status::InvalidArgument(fmt::format("grammar: rule '{}' is defined twice", grammar_.rules[id].name));
  }
  defined_[id] = true;
  grammar_.rules[id].alternatives = std::move(alternatives);
  return Status::Ok();
}

uint32_t GrammarBuilder::helper(const std::string& base, std::vector<Alternative> alternatives) {
  const uint32_t id = static_cast<uint32_t>(grammar_.rules.size());
  grammar_.rules.push_back({fmt::format("{}-{}", base, ++n_helpers_), std::move(alternatives)});
  defined_.push_back(true);
  return id;
}

Element GrammarBuilder::ref(uint32_t rule) {
  Element e;
  e.kind = Element::Kind::kRule;
  e.rule = rule;
  return e;
}

void GrammarBuilder::append_literal(std::string_view text, Alternative* out) {
  for (unsigned char c : text) {
    Element e;
    e.bytes.add(c);
    out->push_back(e);
  }
}

Element GrammarBuilder::codepoint_class(std::vector<CodepointRange> ranges, bool negated) {
  auto key = std::make_pair(ranges, negated);
  if (auto it = class_cache_.find(key); it != class_cache_.end()) return it->second;
  Element single;  // every one-byte code point, as one element
  std::vector<Alternative> alternatives;
  for (auto [lo, hi] : normalize(std::move(ranges), negated)) {
    // Split at the encoded-length boundaries, then into byte-range sequences.
    for (uint32_t bound : {0x7Fu, 0x7FFu, 0xFFFFu, kMaxCodepoint}) {
      if (lo > bound || lo > hi) continue;
      const uint32_t end = std::min(hi, bound);
      for (const ByteRangeSeq& seq : utf8_range_sequences(lo, end)) {
        if (seq.size() == 1) {
          single.bytes.add_range(seq[0].first, seq[0].second);
          continue;
        }
        Alternative alt;
        for (auto [b0, b1] : seq) {
          Element e;
          e.bytes.add_range(b0, b1);
          alt.push_back(e);
        }
        alternatives.push_back(std::move(alt));
      }
      lo = end + 1;
    }
  }
  Element result = single;
  if (!alternatives.empty()) {
    if (!single.bytes.empty()) alternatives.insert(alternatives.begin(), Alternative{single});
    result = ref(helper("char", std::move(alternatives)));
  }
  class_cache_.emplace(std::move(key), result);
  return result;
}

Element GrammarBuilder::repeat(const Element& item, int min, int max) {
  // Unbounded tail: star ::= item star | ""; bounded tail: opt_k ::= item opt_{k-1} | "".
  Alternative tail_alt;
  if (max < 0) {
    const uint32_t star = helper("star", {});
    grammar_.rules[star].alternatives = {{item, ref(star)}, {}};
    tail_alt.push_back(ref(star));
  } else {
    uint32_t inner = 0;
    bool have_inner = false;
    for (int k = 0; k < max - min; ++k) {
      Alternative more{item};
      if (have_inner) more.push_back(ref(inner));
      inner = helper("opt", {std::move(more), {}});
      have_inner = true;
    }
    if (have_inner) tail_alt.push_back(ref(inner));
  }
  Alternative whole(static_cast<size_t>(min), item);
  whole.insert(whole.end(), tail_alt.begin(), tail_alt.end());
  return ref(helper("rep", {std::move(whole)}));
}

Result<Grammar> GrammarBuilder::finish() {
  for (size_t id = 0; id < grammar_.rules.size(); ++id) {
    if (!defined_[id]) {
      return Status::InvalidArgument(id == 0 ? std::string("grammar: no 'root' rule")
                                             : fmt::format("grammar: rule '{}' is used but never defined",
                                                           grammar_.rules[id].name));
    }
  }
  STRATA_RETURN_IF_ERROR(validate_grammar(grammar_));
  return grammar_;
}

}  // namespace strata::grammar
