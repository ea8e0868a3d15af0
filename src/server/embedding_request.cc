#include "server/embedding_request.h"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "server/json_fields.h"

namespace strata::server {

namespace {

// One token-id array: non-empty, ids non-negative integers (the engine checks the vocabulary).
Status read_token_ids(const RequestJson& value, const std::string& where, std::vector<int32_t>* out) {
  if (value.empty()) return Status::InvalidArgument("'" + where + "' must not be empty");
  for (size_t i = 0; i < value.size(); ++i) {
    const RequestJson& id = value[i];
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > INT32_MAX) {
      return Status::InvalidArgument(
          fmt::format("'{}[{}]' must be a token id (an integer >= 0), got {}", where, i, describe_value(id)));
    }
    out->push_back(static_cast<int32_t>(id.get<int64_t>()));
  }
  return Status::Ok();
}

Status read_inputs(const RequestJson& input, EmbeddingRequest* r) {
  if (input.is_string()) {
    if (input.get<std::string>().empty()) return Status::InvalidArgument("'input' must not be an empty string");
    r->inputs.emplace_back(input.get<std::string>());
    return Status::Ok();
  }
  if (!input.is_array() || input.empty()) {
    return Status::InvalidArgument("'input' must be a string or a non-empty array of strings or token ids, got " +
                                   describe_value(input));
  }
  if (input.size() > kMaxEmbeddingInputs) {
    return Status::InvalidArgument(
        fmt::format("'input' has {} items; at most {} per request", input.size(), kMaxEmbeddingInputs));
  }
  if (input[0].is_number()) {  // one input as token ids
    std::vector<int32_t> ids;
    STRATA_RETURN_IF_ERROR(read_token_ids(input, "input", &ids));
    r->inputs.emplace_back(std::move(ids));
    return Status::Ok();
  }
  for (size_t i = 0; i < input.size(); ++i) {
    const RequestJson& item = input[i];
    const std::string where = fmt::format("input[{}]", i);
    if (item.is_string() && !item.get<std::string>().empty()) {
      r->inputs.emplace_back(item.get<std::string>());
    } else if (item.is_array()) {
      std::vector<int32_t> ids;
      STRATA_RETURN_IF_ERROR(read_token_ids(item, where, &ids));
      r->inputs.emplace_back(std::move(ids));
    } else {
      return Status::InvalidArgument(fmt::format("'{}' must be a non-empty string or an array of token ids, got {}",
                                                 where, describe_value(item)));
    }
  }
  return Status::Ok();
}

std::string base64_of(const std::vector<float>& v) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes(v.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), v.data(), bytes.size());  // little-endian on every machine Strata builds for
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t group = 0;
    for (size_t k = 0; k < 3; ++k) group = group << 8 | (k < n ? static_cast<uint8_t>(bytes[i + k]) : 0u);
    for (size_t k = 0; k < 4; ++k) out.push_back(k <= n ? kAlphabet[group >> (18 - 6 * k) & 63] : '=');
  }
  return out;
}

}  // namespace

Result<EmbeddingRequest> parse_embedding_request(const RequestJson& body) {
  EmbeddingRequest r;
  const RequestJson* input = find_field(body, "input");
  if (input == nullptr) return Status::InvalidArgument("'input' is required");
  STRATA_RETURN_IF_ERROR(read_inputs(*input, &r));
  std::string format = "float";
  STRATA_RETURN_IF_ERROR(read_string(body, "encoding_format", &format));
  if (format != "float" && format != "base64") {
    return Status::InvalidArgument("'encoding_format' must be \"float\" or \"base64\", got \"" + format + "\"");
  }
  r.base64 = format == "base64";
  STRATA_RETURN_IF_ERROR(read_int(body, "dimensions", 1, 1 << 20, &r.dimensions));
  return r;
}

std::vector<float> served_embedding(const std::vector<float>& pooled, int dimensions) {
  const size_t n = dimensions > 0 && static_cast<size_t>(dimensions) < pooled.size() ? dimensions : pooled.size();
  std::vector<float> out(pooled.begin(), pooled.begin() + static_cast<std::ptrdiff_t>(n));
  double sum = 0;
  for (float x : out) sum += static_cast<double>(x) * x;
  if (sum > 0) {
    const double inv = 1.0 / std::sqrt(sum);
    for (float& x : out) x = static_cast<float>(x * inv);
  }
  return out;
}

json embedding_response_json(const std::vector<std::vector<float>>& vectors, bool base64, const std::string& model,
                             int prompt_tokens) {
  json data = json::array();
  for (size_t i = 0; i < vectors.size(); ++i) {
    data.push_back({{"object", "embedding"},
                    {"index", i},
                    {"embedding", base64 ? json(base64_of(vectors[i])) : json(vectors[i])}});
  }
  return {{"object", "list"},
          {"data", std::move(data)},
          {"model", model},
          {"usage", {{"prompt_tokens", prompt_tokens}, {"total_tokens", prompt_tokens}}}};
}

}  // namespace strata::server
