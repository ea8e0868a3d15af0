// The tokenizer.* metadata a generated model carries: either copied from a GGUF file that
// has a real vocabulary (e.g. ggml-vocab-llama-spm.gguf) or a built-in byte-level
// SentencePiece vocabulary. Plain values; pure functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "gguf/gguf_value.h"

namespace strata {

struct VocabMetadata {
  std::vector<std::pair<std::string, GgufValue>> keys;  // all tokenizer.* keys
  int n_vocab = 0;
};

inline constexpr int kByteVocabSize = 3 + 256;  // <unk> <s> </s> and <0x00>..<0xFF>

// tokenizer.ggml.model "llama" with ids 0 <unk>, 1 <s> (BOS), 2 </s> (EOS), 3 + b the byte
// token <0xbb> (type BYTE), so every text encodes through byte fallback. n_vocab beyond
// kByteVocabSize is padded with "<unused_N>" tokens of type UNUSED (keeps a preset's shape).
VocabMetadata builtin_byte_vocab(int n_vocab);

// Every tokenizer.* key of a GGUF file; fails if it has no tokenizer.ggml.tokens array.
Result<VocabMetadata> vocab_from_gguf(const std::string& path);

}  // namespace strata
