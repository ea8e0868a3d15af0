// TokenizerSpec: everything a GGUF file says about its tokenizer (the tokenizer.ggml.* keys),
// read into plain values. It is the seam between the file format and the tokenizer: tests and
// generators build one in memory, read_tokenizer_spec() fills one from a GgufFile, and
// add_tokenizer_spec() writes one back into a GgufWriter.
//
// A plain value type; no invariants beyond what Tokenizer::FromSpec checks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace strata {

class GgufFile;
class GgufWriter;

// Token types as GGUF stores them (tokenizer.ggml.token_type).
enum class TokenType : int32_t {
  kUndefined = 0,
  kNormal = 1,
  kUnknown = 2,
  kControl = 3,      // special tokens: BOS, EOS, <|im_end|>...; matched in text only on request
  kUserDefined = 4,  // added tokens that are always matched in text (<think>, <tool_call>)
  kUnused = 5,
  kByte = 6,         // SentencePiece byte fallback: <0x00> .. <0xFF>
};

struct TokenizerSpec {
  std::string model;  // tokenizer.ggml.model: "llama" (SentencePiece) or "gpt2" (byte-level BPE)
  std::string pre;    // tokenizer.ggml.pre: pre-tokenizer variant of BPE vocabs; "" = default
  std::vector<std::string> tokens;
  std::vector<float> scores;          // empty, or one per token (SentencePiece merge priority)
  std::vector<int32_t> token_types;   // empty (all kNormal), or one TokenType value per token
  std::vector<std::string> merges;    // BPE merges "left right", highest priority first
  int32_t bos_id = -1;
  int32_t eos_id = -1;
  int32_t unk_id = -1;
  int32_t pad_id = -1;
  int32_t eot_id = -1;
  int32_t eom_id = -1;
  std::optional<bool> add_bos;           // nullopt: the model family's default
  std::optional<bool> add_eos;
  std::optional<bool> add_space_prefix;  // SentencePiece only
};

// Reads the tokenizer.ggml.* keys. Errors name the key that is missing or malformed.
Result<TokenizerSpec> read_tokenizer_spec(const GgufFile& gguf);

// Sets the tokenizer.ggml.* keys of spec on writer (optional fields only when present).
void add_tokenizer_spec(const TokenizerSpec& spec, GgufWriter* writer);

}  // namespace strata
