// /v1/embeddings requests: OpenAI's four input forms, the options, errors naming the field;
// the served vector (cut, then L2-normalised) and the base64 form (float32 bytes, as the
// OpenAI SDKs decode them).
#include "server/embedding_request.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace strata::server {
namespace {

using nlohmann::json;

std::string error_of(const json& body) {
  Result<EmbeddingRequest> r = parse_embedding_request(body);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : std::string(r.status().message());
}

TEST(EmbeddingRequest, TakesEachOfOpenAisInputForms) {
  auto one = parse_embedding_request({{"input", "hello"}});
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->inputs.size(), 1u);
  EXPECT_EQ(std::get<std::string>(one->inputs[0]), "hello");
  EXPECT_FALSE(one->base64);
  EXPECT_EQ(one->dimensions, 0);

  auto ids = parse_embedding_request({{"input", {5, 6, 7}}, {"encoding_format", "base64"}, {"dimensions", 32}});
  ASSERT_TRUE(ids.ok());
  ASSERT_EQ(ids->inputs.size(), 1u);
  EXPECT_EQ(std::get<std::vector<int32_t>>(ids->inputs[0]), (std::vector<int32_t>{5, 6, 7}));
  EXPECT_TRUE(ids->base64);
  EXPECT_EQ(ids->dimensions, 32);

  auto mixed = parse_embedding_request({{"input", json::array({"a", json::array({1, 2}), "b"})}, {"user", "u"}});
  ASSERT_TRUE(mixed.ok());
  ASSERT_EQ(mixed->inputs.size(), 3u);
  EXPECT_EQ(std::get<std::string>(mixed->inputs[2]), "b");
  EXPECT_EQ(std::get<std::vector<int32_t>>(mixed->inputs[1]), (std::vector<int32_t>{1, 2}));
}

TEST(EmbeddingRequest, BadInputsNameWhatIsWrong) {
  EXPECT_EQ(error_of(json::object()), "'input' is required");
  EXPECT_EQ(error_of({{"input", ""}}), "'input' must not be an empty string");
  EXPECT_NE(error_of({{"input", json::array()}}).find("non-empty array"), std::string::npos);
  EXPECT_NE(error_of({{"input", json::array({"a", ""})}}).find("'input[1]' must be a non-empty string"),
            std::string::npos);
  EXPECT_NE(error_of({{"input", json::array({1, -2})}}).find("'input[1]' must be a token id"), std::string::npos);
  EXPECT_NE(error_of({{"input", json::array({json::array({1}), json::array()})}}).find("'input[1]' must not be empty"),
            std::string::npos);
  EXPECT_NE(error_of({{"input", "x"}, {"encoding_format", "int8"}}).find("'encoding_format'"), std::string::npos);
  EXPECT_NE(error_of({{"input", "x"}, {"dimensions", 0}}).find("'dimensions'"), std::string::npos);
  json many = {{"input", json::array()}};
  for (size_t i = 0; i <= kMaxEmbeddingInputs; ++i) many["input"].push_back("x");
  EXPECT_NE(error_of(many).find("at most 2048"), std::string::npos);
}

TEST(EmbeddingRequest, ServedVectorIsTheCutNormalised) {
  const std::vector<float> pooled = {3.0f, 4.0f, 12.0f};
  const std::vector<float> all = served_embedding(pooled, 0);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_FLOAT_EQ(all[0], 3.0f / 13.0f);
  EXPECT_FLOAT_EQ(all[2], 12.0f / 13.0f);
  const std::vector<float> cut = served_embedding(pooled, 2);
  ASSERT_EQ(cut.size(), 2u);
  EXPECT_FLOAT_EQ(cut[0], 0.6f);
  EXPECT_FLOAT_EQ(cut[1], 0.8f);
  EXPECT_EQ(served_embedding({0.0f, 0.0f}, 0), (std::vector<float>{0.0f, 0.0f}));
}

// Decodes standard base64 (with padding).
std::string decode_base64(const std::string& text) {
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t bits = 0;
  int n_bits = 0;
  for (char c : text) {
    if (c == '=') break;
    bits = bits << 6 | static_cast<uint32_t>(alphabet.find(c));
    n_bits += 6;
    if (n_bits >= 8) {
      n_bits -= 8;
      out.push_back(static_cast<char>(bits >> n_bits & 0xff));
    }
  }
  return out;
}

TEST(EmbeddingRequest, ResponseCarriesFloatsOrTheirBase64Bytes) {
  const std::vector<std::vector<float>> vectors = {{0.6f, -0.8f, 0.0f}, {1.0f, 0.0f, 0.0f}};
  const json floats = embedding_response_json(vectors, false, "m", 7);
  EXPECT_EQ(floats["object"], "list");
  EXPECT_EQ(floats["model"], "m");
  EXPECT_EQ(floats["usage"]["prompt_tokens"], 7);
  EXPECT_EQ(floats["usage"]["total_tokens"], 7);
  ASSERT_EQ(floats["data"].size(), 2u);
  EXPECT_EQ(floats["data"][1]["index"], 1);
  EXPECT_EQ(floats["data"][1]["object"], "embedding");
  EXPECT_EQ(floats["data"][0]["embedding"].get<std::vector<float>>(), vectors[0]);

  const json encoded = embedding_response_json(vectors, true, "m", 7);
  for (size_t i = 0; i < vectors.size(); ++i) {
    const std::string bytes = decode_base64(encoded["data"][i]["embedding"].get<std::string>());
    ASSERT_EQ(bytes.size(), vectors[i].size() * sizeof(float));
    EXPECT_EQ(std::memcmp(bytes.data(), vectors[i].data(), bytes.size()), 0);
  }
  EXPECT_EQ(encoded["data"][0]["embedding"].get<std::string>().size() % 4, 0u);
}

}  // namespace
}  // namespace strata::server
