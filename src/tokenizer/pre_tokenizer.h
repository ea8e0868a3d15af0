// PreTokenizer: splits text into the pieces a byte-level BPE vocabulary merges within, using the
// split regexes of the model family (tokenizer.ggml.pre).
//
// A family has one pattern or a sequence of them (DeepSeek's). The first splits the text; each
// next one splits every piece the one before produced, its matches and the text between them
// both becoming pieces (Hugging Face's Sequence of Split pre-tokenizers with behavior Isolated,
// llama.cpp's unicode_regex_split). Each pattern sees one piece as its whole subject, so "$" and
// look-arounds stop at the piece's ends.
//
// Owns the compiled PCRE2 patterns (UTF mode, Unicode properties, JIT when available). Immutable
// after Create(); split() allocates its own match data, so one PreTokenizer serves any number of
// threads. Move-only.
// Invariant of split(): the pieces tile the text exactly, in order (their concatenation is the
// input), so no byte is lost even for invalid UTF-8, which never matches and becomes its own piece,
// nor when a match fails (the rest of the text, or of the piece, stays one piece).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace strata {

enum class PreTokenizerKind {
  kGpt2,    // GPT-2 and most older BPE models
  kLlama3,  // Llama-3: case-insensitive contractions, digits in groups of up to three
  kQwen2,   // Qwen2/Qwen3: as Llama-3 but single digits
  kQwen35,  // Qwen3.5: as Qwen2, with combining marks (\p{M}) counted as letters
  kGpt4o,   // o200k (GPT-4o, gpt-oss, Llama 4): words split at case changes, contractions attached
  kTekken,  // Mistral's tekken (Nemo, Small 3.x): o200k's words without contractions, single digits
  // Sequences of patterns:
  kStarcoder,      // StarCoder, Command R, SmolLM: every digit a piece of its own, then GPT-2's split
  kDeepseekLlm,    // DeepSeek LLM, V2: cased-letter words, punctuation runs, CJK runs, digit runs
  kDeepseekCoder,  // DeepSeek Coder: as deepseek-llm with all letters and single digits
  kDeepseekV3,     // DeepSeek-V3, R1: digits in threes, ideograph and kana runs, then a GPT-style split
  kKimiK2,         // Kimi K2: Han runs apart, o200k-style words around them
};

struct PreTokenizerChoice {
  PreTokenizerKind kind;
  bool ignore_merges;  // emit a piece whole when it is a token (the Llama-3 and tiktoken BPE rule)
  bool exact;          // false when the name was unknown and the closest family was assumed
  // The family adds BOS when the file's tokenizer.ggml.add_bos_token does not say (Llama 3's,
  // Mistral's tekken and pixtral vocabularies, as llama.cpp's llama-vocab.cpp sets them).
  bool add_bos = false;
};

// Maps a tokenizer.ggml.pre value ("gpt-2", "llama-bpe", "qwen2", "gpt-4o", "deepseek-v3",
// "tekken", ...; "" = default).
PreTokenizerChoice choose_pre_tokenizer(std::string_view pre_name);

const char* pre_tokenizer_kind_name(PreTokenizerKind kind);

class PreTokenizer {
 public:
  static Result<PreTokenizer> Create(PreTokenizerKind kind);

  PreTokenizer(PreTokenizer&&) noexcept = default;
  PreTokenizer& operator=(PreTokenizer&&) noexcept = default;
  ~PreTokenizer();

  PreTokenizerKind kind() const { return kind_; }
  // Appends the pieces of text (views into text) to pieces.
  Status split(std::string_view text, std::vector<std::string_view>* pieces) const;

 private:
  struct CodeDeleter {
    void operator()(void* code) const;
  };
  using Code = std::unique_ptr<void, CodeDeleter>;  // pcre2_code_8, kept opaque to spare users the header
  PreTokenizer(PreTokenizerKind kind, std::vector<Code> codes);

  PreTokenizerKind kind_;
  std::vector<Code> codes_;  // in the order they split; never empty
};

}  // namespace strata
