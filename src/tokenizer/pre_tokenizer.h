// PreTokenizer: splits text into the pieces a byte-level BPE vocabulary merges within, using the
// split regex of the model family (tokenizer.ggml.pre).
//
// Owns one compiled PCRE2 pattern (UTF mode, Unicode properties, JIT when available). Immutable
// after Create(); split() allocates its own match data, so one PreTokenizer serves any number of
// threads. Move-only.
// Invariant of split(): the pieces tile the text exactly, in order (their concatenation is the
// input), so no byte is lost even for invalid UTF-8, which never matches and becomes its own piece.
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
  kGpt4o,   // o200k (GPT-4o, gpt-oss, Llama 4): words split at case changes, contractions attached
};

struct PreTokenizerChoice {
  PreTokenizerKind kind;
  bool ignore_merges;  // emit a piece whole when it is a token (the Llama-3 and tiktoken BPE rule)
  bool exact;          // false when the name was unknown and the closest family was assumed
};

// Maps a tokenizer.ggml.pre value ("gpt-2", "llama-bpe", "qwen2", "gpt-4o", ...; "" = default).
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
  PreTokenizer(PreTokenizerKind kind, void* code);

  PreTokenizerKind kind_;
  std::unique_ptr<void, CodeDeleter> code_;  // pcre2_code_8, kept opaque to spare users the header
};

}  // namespace strata
