// Encoding and decoding; construction is in tokenizer_load.cc.
#include "tokenizer/tokenizer.h"

#include "base/log.h"

namespace strata {
namespace {

constexpr std::string_view kSpmSpace = "\xE2\x96\x81";  // U+2581, SentencePiece's visible space

void escape_spaces(std::string_view text, bool space_prefix, std::string* out) {
  out->clear();
  if (space_prefix) out->append(kSpmSpace);
  for (char c : text) {
    if (c == ' ') {
      out->append(kSpmSpace);
    } else {
      out->push_back(c);
    }
  }
}

}  // namespace

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool add_special, bool parse_special) const {
  std::vector<int32_t> ids;
  encode_into(text, add_special, parse_special, &ids);
  return ids;
}

void Tokenizer::encode_into(std::string_view text, bool add_special, bool parse_special,
                            std::vector<int32_t>* out) const {
  if (add_special && add_bos_) out->push_back(bos_id_);
  std::vector<TextFragment> fragments;
  matcher_.split(text, parse_special, &fragments);
  // The space prefix goes before the text and before text that follows a matched token, as
  // SentencePiece does when each run of text between special tokens is encoded on its own.
  bool after_token = true;
  for (const TextFragment& fragment : fragments) {
    if (fragment.token_id >= 0) {
      out->push_back(fragment.token_id);
      after_token = true;
      continue;
    }
    encode_text(fragment.text, add_space_prefix_ && after_token, out);
    after_token = false;
  }
  if (add_special && add_eos_) out->push_back(eos_id_);
}

void Tokenizer::encode_text(std::string_view text, bool space_prefix, std::vector<int32_t>* out) const {
  if (spm_) {
    std::string escaped;
    escape_spaces(text, space_prefix, &escaped);
    spm_->encode(escaped, out);
    return;
  }
  if (kind_ == Kind::kCharacterBpe) {
    encode_character_bpe(text, out);
    return;
  }
  std::vector<std::string_view> pieces;
  const Status split = pre_->split(text, &pieces);
  if (!split.ok()) {
    // The pieces still tile the text (the rest is one piece), so the ids stay exact.
    STRATA_LOG_WARN("tokenizer: {}", split.ToString());
  }
  for (std::string_view piece : pieces) bpe_->encode_piece(piece, out);
}

// Gemma 4's: spaces as "▁", then runs of newlines (one token when the run is one) and runs of
// anything else, each merged over its characters.
void Tokenizer::encode_character_bpe(std::string_view text, std::vector<int32_t>* out) const {
  std::string escaped;
  escape_spaces(text, false, &escaped);
  const std::string_view all(escaped);
  for (size_t start = 0; start < all.size();) {
    const bool newlines = all[start] == '\n';
    size_t end = start;
    while (end < all.size() && (all[end] == '\n') == newlines) ++end;
    const std::string_view run = all.substr(start, end - start);
    const int32_t whole = newlines ? vocab_.find(run) : -1;
    if (whole >= 0) {
      out->push_back(whole);
    } else {
      bpe_->encode_piece(run, out);
    }
    start = end;
  }
}

std::string_view Tokenizer::piece(int32_t id) const {
  return vocab_.contains(id) ? std::string_view(pieces_[id]) : std::string_view();
}

const std::string& Tokenizer::token_text(int32_t id) const {
  static const std::string kEmpty;
  return vocab_.contains(id) ? vocab_.text(id) : kEmpty;
}

void Tokenizer::append_piece(int32_t id, const DecodeOptions& options, bool* strip_next, std::string* out) const {
  if (!vocab_.contains(id)) return;
  if (flags_[id] & kMatchedInText) {
    *strip_next = options.strip_space_prefix && add_space_prefix_;
    if (!(options.skip_special && (flags_[id] & kSpecial))) out->append(pieces_[id]);
    return;
  }
  std::string_view text = pieces_[id];
  if (*strip_next && add_space_prefix_ && !text.empty() && text.front() == ' ') text.remove_prefix(1);
  *strip_next = false;
  out->append(text);
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool skip_special) const {
  DecodeOptions options;
  options.skip_special = skip_special;
  return decode(ids, options);
}

std::string Tokenizer::decode(std::span<const int32_t> ids, const DecodeOptions& options) const {
  std::string text;
  bool strip_next = options.strip_space_prefix;
  for (int32_t id : ids) append_piece(id, options, &strip_next, &text);
  return text;
}

}  // namespace strata
