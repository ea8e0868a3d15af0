// Tokenizer: turns text into token ids and back for one model, as its GGUF file describes
// (tokenizer.ggml.*). Three families:
//   - SentencePiece ("llama"): score-driven BPE over characters, <0xNN> byte fallback, ' ' stored
//     as U+2581 ("▁"), and a space prefix before the text (add_space_prefix, default true);
//   - byte-level BPE ("gpt2"): the model's split regex (tokenizer.ggml.pre: gpt2, llama-bpe,
//     qwen2, ...), then ranked merges over the GPT-2 byte alphabet;
//   - Gemma 4's ("gemma4"): ' ' stored as "▁" (no space prefix), the text cut only into runs of
//     newlines and runs of other characters, ranked merges over UTF-8 characters with <0xNN>
//     byte fallback; a run of newlines that is itself a token is that token. BOS always leads
//     (add_special), whatever the file says, as llama.cpp reads these files.
// Special tokens spelled in the text are matched first (see SpecialMatcher).
//
// Owns the vocabulary, merge table and compiled split regex. Immutable after FromGguf/FromSpec,
// so encode/decode may run concurrently from any number of threads. Not copyable or movable
// (the encoders point into it); hold it by the unique_ptr the factories return.
//
// Exactness: decode(encode(s, false, false)) == s for every byte string s that is valid UTF-8
// (and for invalid UTF-8 too: byte fallback / byte alphabet carry any byte).
//
// The SentencePiece space prefix (add_space_prefix models only): encode() puts one "▁" before the
// text and before any text that follows a special token matched in it. decode() removes it again
// when DecodeOptions::strip_space_prefix is set (the default): it drops one leading ' ' from the
// first text piece of the ids and from the first text piece after each control/user-defined
// token. Clear it when the ids continue earlier text (generated tokens), whose leading space is real.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "tokenizer/bpe_encoder.h"
#include "tokenizer/byte_unicode.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/special_matcher.h"
#include "tokenizer/spm_encoder.h"
#include "tokenizer/tokenizer_spec.h"
#include "tokenizer/vocab.h"

namespace strata {

class GgufFile;

struct DecodeOptions {
  bool skip_special = false;       // leave out control and unknown tokens (BOS, EOS, <|im_end|>)
  bool strip_space_prefix = true;  // undo the SentencePiece space prefix (see above)
};

class Tokenizer {
 public:
  enum class Kind { kSentencePiece, kByteBpe, kCharacterBpe };

  static Result<std::unique_ptr<Tokenizer>> FromGguf(const GgufFile& gguf);
  // Errors name the tokenizer.ggml.* key that is missing or inconsistent.
  static Result<std::unique_ptr<Tokenizer>> FromSpec(TokenizerSpec spec);

  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // add_special: BOS first when add_bos(), EOS last when add_eos().
  // parse_special: control tokens spelled in text ("<|im_start|>") become their ids; without it
  // they are tokenized as ordinary text. User-defined tokens are always matched.
  std::vector<int32_t> encode(std::string_view text, bool add_special, bool parse_special) const;
  // The same, appending to out.
  void encode_into(std::string_view text, bool add_special, bool parse_special, std::vector<int32_t>* out) const;

  // The bytes id stands for in text: SentencePiece "▁" as ' ' and <0xNN> as the byte; byte-level
  // tokens mapped back to bytes; special tokens as their text. Empty for an id out of range.
  std::string token_to_piece(int32_t id) const { return std::string(piece(id)); }
  std::string_view piece(int32_t id) const;

  // Concatenated pieces; ids out of range contribute nothing. May end inside a UTF-8 character
  // when the ids do (use StreamDecoder for text that must always be valid UTF-8).
  std::string decode(std::span<const int32_t> ids, bool skip_special = false) const;
  std::string decode(std::span<const int32_t> ids, const DecodeOptions& options) const;
  // One step of decode(): appends the text of id. *strip_next carries the space-prefix rule from
  // one call to the next; start it at options.strip_space_prefix.
  void append_piece(int32_t id, const DecodeOptions& options, bool* strip_next, std::string* out) const;

  Kind kind() const { return kind_; }
  int32_t n_vocab() const { return vocab_.n_tokens(); }
  int32_t bos() const { return bos_id_; }  // -1 if none
  int32_t eos() const { return eos_id_; }
  int32_t eot() const { return eot_id_; }
  int32_t unk() const { return unk_id_; }
  int32_t pad() const { return pad_id_; }
  // The file's add_bos_token, else the family's default (SentencePiece, Llama 3, Mistral's tekken
  // and pixtral: PreTokenizerChoice::add_bos); never for GLM's vocabularies (tokenizer.ggml.pre
  // "glm4", "chatglm-bpe"), whose template writes its own.
  bool add_bos() const { return add_bos_; }
  bool add_eos() const { return add_eos_; }
  bool add_space_prefix() const { return add_space_prefix_; }
  PreTokenizerKind pre_tokenizer() const { return pre_kind_; }

  // End of generation: EOS, EOT, EOM, and control tokens named like an end of turn
  // (<|im_end|>, <|eot_id|>, <|endoftext|>, </s>, <|return|>, <|call|>, ...); not harmony's
  // <|end|> in a vocabulary with <|return|> and <|call|> (gpt-oss), which ends one message of a
  // reply, not the reply. In GLM's vocabularies also <|user|> and <|observation|>, which end
  // its replies (tokenizer_load.cc).
  bool is_eog(int32_t id) const { return vocab_.contains(id) && (flags_[id] & kEog) != 0; }
  const std::vector<int32_t>& eog_ids() const { return eog_ids_; }
  // Control and unknown tokens: what DecodeOptions::skip_special leaves out.
  bool is_special(int32_t id) const { return vocab_.contains(id) && (flags_[id] & kSpecial) != 0; }
  TokenType token_type(int32_t id) const { return vocab_.type(id); }
  const std::string& token_text(int32_t id) const;  // the vocabulary string; "" when out of range
  int32_t find_token(std::string_view text) const { return vocab_.find(text); }

 private:
  static constexpr uint8_t kSpecial = 1;
  static constexpr uint8_t kEog = 2;
  static constexpr uint8_t kMatchedInText = 4;  // control/unknown/user-defined: ends a text run

  explicit Tokenizer(TokenizerSpec& spec, Kind kind);
  Status configure(const TokenizerSpec& spec);
  Status build_encoder(const TokenizerSpec& spec);
  void build_pieces();
  void build_flags(bool glm);
  void encode_text(std::string_view text, bool space_prefix, std::vector<int32_t>* out) const;
  void encode_character_bpe(std::string_view text, std::vector<int32_t>* out) const;

  Kind kind_;
  Vocab vocab_;
  ByteUnicodeMap bytes_;
  SpecialMatcher matcher_;
  std::optional<SpmEncoder> spm_;
  std::optional<BpeEncoder> bpe_;
  std::optional<PreTokenizer> pre_;
  PreTokenizerKind pre_kind_ = PreTokenizerKind::kGpt2;
  std::vector<std::string> pieces_;
  std::vector<uint8_t> flags_;
  std::vector<int32_t> eog_ids_;
  int32_t bos_id_ = -1;
  int32_t eos_id_ = -1;
  int32_t eot_id_ = -1;
  int32_t eom_id_ = -1;
  int32_t unk_id_ = -1;
  int32_t pad_id_ = -1;
  bool add_bos_ = false;
  bool add_eos_ = false;
  bool add_space_prefix_ = false;
};

}  // namespace strata
