// OpenAI's POST /v1/embeddings: the request's inputs and options, and the response body.
//
// input: a string, an array of strings, an array of token ids, or an array of arrays of token
// ids (OpenAI's four forms), at most kMaxEmbeddingInputs items, none empty. encoding_format:
// "float" (default) or "base64" (the little-endian float32 bytes, base64-encoded, as OpenAI's
// SDKs decode them). dimensions: keep the first N of the model's n_embd values (Matryoshka
// models, such as Qwen3-Embedding, are trained for it), normalised after the cut. Each vector
// is L2-normalised, as OpenAI's are. `user` is accepted and ignored. Stateless; pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "server/request_json.h"

namespace strata::server {

inline constexpr size_t kMaxEmbeddingInputs = 2048;  // OpenAI's limit per request

struct EmbeddingRequest {
  // Each input: text to tokenize (with the model's BOS / EOS), or token ids taken as they are.
  std::vector<std::variant<std::string, std::vector<int32_t>>> inputs;
  bool base64 = false;
  int dimensions = 0;  // 0: all of them
};

Result<EmbeddingRequest> parse_embedding_request(const RequestJson& body);

// The vector as served: its first `dimensions` values (all when 0), divided by their L2 norm
// (summed in double; a zero vector stays zero).
std::vector<float> served_embedding(const std::vector<float>& pooled, int dimensions);

// {"object": "list", "data": [{"object": "embedding", "index": i, "embedding": ...}], "model",
// "usage": {"prompt_tokens", "total_tokens"}}.
nlohmann::json embedding_response_json(const std::vector<std::vector<float>>& vectors, bool base64,
                                       const std::string& model, int prompt_tokens);

}  // namespace strata::server
