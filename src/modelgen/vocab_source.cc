#include "modelgen/vocab_source.h"

#include <cstdio>

#include "gguf/gguf_file.h"

namespace strata {

namespace {

// SentencePiece token types as GGUF stores them (tokenizer.ggml.token_type).
constexpr int32_t kTypeUnknown = 2;
constexpr int32_t kTypeControl = 3;
constexpr int32_t kTypeUnused = 5;
constexpr int32_t kTypeByte = 6;

}  // namespace

VocabMetadata builtin_byte_vocab(int n_vocab) {
  if (n_vocab < kByteVocabSize) n_vocab = kByteVocabSize;
  std::vector<std::string> tokens = {"<unk>", "<s>", "</s>"};
  std::vector<int32_t> types = {kTypeUnknown, kTypeControl, kTypeControl};
  for (int b = 0; b < 256; ++b) {
    char piece[8];
    std::snprintf(piece, sizeof(piece), "<0x%02X>", b);
    tokens.emplace_back(piece);
    types.push_back(kTypeByte);
  }
  for (int id = kByteVocabSize; id < n_vocab; ++id) {
    tokens.push_back("<unused_" + std::to_string(id - kByteVocabSize) + ">");
    types.push_back(kTypeUnused);
  }
  VocabMetadata v;
  v.n_vocab = n_vocab;
  v.keys.emplace_back("tokenizer.ggml.model", GgufValue::String("llama"));
  v.keys.emplace_back("tokenizer.ggml.tokens", GgufValue::StringArray(tokens));
  v.keys.emplace_back("tokenizer.ggml.scores", GgufValue::F32Array(std::vector<float>(tokens.size(), 0.0f)));
  v.keys.emplace_back("tokenizer.ggml.token_type", GgufValue::I32Array(types));
  v.keys.emplace_back("tokenizer.ggml.bos_token_id", GgufValue::U32(1));
  v.keys.emplace_back("tokenizer.ggml.eos_token_id", GgufValue::U32(2));
  v.keys.emplace_back("tokenizer.ggml.unknown_token_id", GgufValue::U32(0));
  v.keys.emplace_back("tokenizer.ggml.add_bos_token", GgufValue::Bool(true));
  v.keys.emplace_back("tokenizer.ggml.add_eos_token", GgufValue::Bool(false));
  return v;
}

Result<VocabMetadata> vocab_from_gguf(const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(GgufFile file, GgufFile::Open(path));
  const auto* tokens = file.get_array("tokenizer.ggml.tokens");
  if (tokens == nullptr || tokens->array_size() == 0) {
    return Status::InvalidArgument(path + ": has no tokenizer.ggml.tokens array to copy a vocabulary from");
  }
  VocabMetadata v;
  v.n_vocab = static_cast<int>(tokens->array_size());
  for (const auto& [key, value] : file.metadata()) {
    if (key.starts_with("tokenizer.")) v.keys.emplace_back(key, value);
  }
  return v;
}

}  // namespace strata
