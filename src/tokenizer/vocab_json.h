// Test support: reads the JSON vocabulary description that tests/tokenizer/json_to_gguf_vocab.mjs
// writes (tokenizer.ggml.* fields of a Hugging Face tokenizer.json) into a TokenizerSpec, and
// writes a vocab-only GGUF from it, so reference tokenizers can be compared through the same
// GGUF loading path as real models.
#pragma once

#include <string>

#include "base/status.h"
#include "tokenizer/tokenizer_spec.h"

namespace strata {

Result<TokenizerSpec> read_vocab_json(const std::string& path);

// Writes spec as a GGUF with no tensors (general.architecture = architecture).
Status write_vocab_gguf(const TokenizerSpec& spec, const std::string& architecture, const std::string& path);

}  // namespace strata
