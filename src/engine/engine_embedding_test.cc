// Embed requests (GenerateRequest::embed): the final norm of the last prompt token's hidden
// state, the same bytes alone, beside generating requests in other slots, through pipeline
// stages, in small prompt chunks and from the prefix cache; a model that pools another way is
// refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "engine/engine_test_util.h"
#include "gguf/gguf_file.h"
#include "model/test_model.h"

namespace strata::testing {
namespace {

namespace fs = std::filesystem;

GenerateRequest embed_request(int n_prompt, uint32_t seed) {
  GenerateRequest r = make_request(n_prompt, 1, seed);
  r.embed = true;
  return r;
}

std::vector<float> embed_alone(const GenerateRequest& r) {
  EngineOptions o;
  o.n_parallel = 1;
  Harness h(o);
  return h.ok() ? h.wait(h.submit(r)).done.embedding : std::vector<float>{};
}

void expect_same_bytes(const std::vector<float>& a, const std::vector<float>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << what;
}

// The embedding e is the vector `logits` come from: the F32 matrix `tensor` of the file at path times
// it, in double (soft-capped at softcap when > 0), gives them to within 1e-4 of the largest.
void expect_logits_come_from(const std::vector<float>& e, const std::string& path, const char* tensor,
                             double softcap, const std::vector<float>& logits) {
  auto gguf = GgufFile::Open(path);
  ASSERT_TRUE(gguf.ok());
  const GgufTensor* m = gguf->find_tensor(tensor);
  ASSERT_TRUE(m != nullptr && m->type == DType::kF32 && e.size() == m->dims[0]);
  const auto* w = reinterpret_cast<const float*>(m->data);
  double max_err = 0, max_logit = 0;
  for (size_t v = 0; v < m->dims[1]; ++v) {
    double dot = 0;
    for (size_t i = 0; i < e.size(); ++i) dot += static_cast<double>(w[v * e.size() + i]) * e[i];
    const double logit = softcap > 0 ? softcap * std::tanh(dot / softcap) : dot;
    max_err = std::max(max_err, std::fabs(logit - logits[v]));
    max_logit = std::max(max_logit, std::fabs(logit));
  }
  EXPECT_LT(max_err, 1e-4 * max_logit) << "largest |logit| " << max_logit;
}

TEST(EngineEmbedding, EndsAfterThePromptWithTheFinalNormOfItsLastToken) {
  EngineOptions o;
  o.n_parallel = 1;
  Harness h(o);
  ASSERT_TRUE(h.ok());
  const int n_embd = 64;  // stories260K
  Output out = h.wait(h.submit(embed_request(40, 3)));
  EXPECT_EQ(out.done.kind, RequestEvent::Kind::kDone);
  EXPECT_EQ(out.done.finish, FinishReason::kStop);
  EXPECT_TRUE(out.tokens.empty());
  EXPECT_EQ(out.done.prompt_tokens, 40);
  EXPECT_EQ(out.done.completion_tokens, 0);
  ASSERT_EQ(static_cast<int>(out.done.embedding.size()), n_embd);
  double norm = 0;
  for (float x : out.done.embedding) norm += static_cast<double>(x) * x;
  // An RMS-normed row times the norm weights: far from zero, finite.
  EXPECT_TRUE(std::isfinite(norm) && norm > 1.0) << norm;
}

// The embedding is the vector the model's logits come from: output.weight (F32 in stories260K)
// times it, in double, gives the logits a generation of the same prompt samples its first token from.
TEST(EngineEmbedding, IsTheVectorTheFirstTokensLogitsComeFrom) {
  EngineOptions o;
  o.n_parallel = 1;
  Harness h(o);
  ASSERT_TRUE(h.ok());
  const std::vector<float> e = h.wait(h.submit(embed_request(40, 3))).done.embedding;
  const Output generated = h.wait(h.submit(make_request(40, 1, 3)));
  ASSERT_EQ(generated.logits.size(), 1u);
  expect_logits_come_from(e, stories_path(), "output.weight", 0.0, generated.logits[0]);
}

// A prompt filling the whole context is an embed request's right (nothing is generated after it).
TEST(EngineEmbedding, MayFillTheWholeContext) {
  EngineOptions o;
  o.n_parallel = 1;
  o.n_ctx = 64;
  Harness h(o);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h.wait(h.submit(embed_request(64, 4))).done.embedding.size(), 64u);
  GenerateRequest generate = make_request(64, 1, 4);
  EXPECT_EQ(h.engine().submit(generate, nullptr).status().code(), Code::kOutOfRange);
}

TEST(EngineEmbedding, SameBytesBesideGenerationInSlotsStagesChunksAndFromThePrefixCache) {
  std::vector<GenerateRequest> embeds = {embed_request(70, 11), embed_request(33, 12), embed_request(90, 13)};
  std::vector<std::vector<float>> alone;
  for (const GenerateRequest& r : embeds) alone.push_back(embed_alone(r));
  EngineOptions o;
  o.n_parallel = 4;
  o.n_stages = 2;
  o.prefill_chunk = 24;
  Harness h(o);
  ASSERT_TRUE(h.ok());
  GenerateRequest generating = make_request(50, 30, 21);
  RequestId g = h.submit(generating);
  std::vector<RequestId> ids;
  for (const GenerateRequest& r : embeds) ids.push_back(h.submit(r));
  for (size_t i = 0; i < embeds.size(); ++i) {
    expect_same_bytes(h.wait(ids[i]).done.embedding, alone[i], "batched " + std::to_string(i));
  }
  expect_identical(h.wait(g), run_solo(generating), "the generating neighbour");
  Output again = h.wait(h.submit(embeds[0]));
  EXPECT_GE(again.done.cached_tokens, 48);
  expect_same_bytes(again.done.embedding, alone[0], "from the prefix cache");
}

// A file of spec (tag names it) serves generation but refuses embed requests with an error
// holding needle.
void expect_embeddings_refused(TestModelSpec spec, const std::string& tag, const std::string& needle) {
  const std::string path =
      (fs::path(::testing::TempDir()) / ("engine_embed_" + tag + "_" + std::to_string(::getpid()) + ".gguf")).string();
  spec.n_vocab = 512;
  ASSERT_TRUE(add_vocabulary_from(stories_path(), spec).ok());
  ASSERT_TRUE(write_test_model(spec, path).ok());
  EngineOptions o;
  o.model_path = path;
  o.n_parallel = 1;
  Harness h(o);
  ASSERT_TRUE(h.ok());
  Result<RequestId> refused = h.engine().submit(embed_request(10, 1), nullptr);
  EXPECT_EQ(refused.status().code(), Code::kUnsupported);
  EXPECT_NE(refused.status().message().find(needle), std::string::npos) << refused.status().message();
  EXPECT_FALSE(h.wait(h.submit(make_request(10, 2, 1))).tokens.empty()) << "generation still works";
  fs::remove(path);
}

TEST(EngineEmbedding, AModelPoolingAnotherWayIsRefused) {
  TestModelSpec spec;
  spec.metadata_overrides = {{"llama.pooling_type", GgufValue::U32(1)}};
  expect_embeddings_refused(spec, "mean", "llama.pooling_type is 1");
}

// Gemma 3n's last hidden state is AltUp's four streams: its embedding is the final norm of their
// merge, the vector its logits come from (its tied token_embd, F32 here, times it in double,
// soft-capped at 30, gives the logits a generation samples its first token from), and the same
// bytes alone, through two stages beside a generating request, and in small prompt chunks.
TEST(EngineEmbedding, Gemma3nsIsTheMergedStreamsItsLogitsComeFrom) {
  const std::string path =
      (fs::path(::testing::TempDir()) / ("engine_embed_gemma3n_" + std::to_string(::getpid()) + ".gguf")).string();
  TestModelSpec spec;
  spec.arch = "gemma3n";
  spec.n_vocab = 512;
  ASSERT_TRUE(add_vocabulary_from(stories_path(), spec).ok());
  ASSERT_TRUE(write_test_model(spec, path).ok());
  EngineOptions o;
  o.model_path = path;
  o.n_parallel = 1;
  std::vector<float> e;
  {
    Harness h(o);
    ASSERT_TRUE(h.ok());
    e = h.wait(h.submit(embed_request(30, 5))).done.embedding;
    const Output generated = h.wait(h.submit(make_request(30, 1, 5)));
    ASSERT_EQ(generated.logits.size(), 1u);
    expect_logits_come_from(e, path, "token_embd.weight", 30.0, generated.logits[0]);
  }
  o.n_parallel = 2;
  o.n_stages = 2;
  o.prefill_chunk = 7;
  Harness staged(o);
  ASSERT_TRUE(staged.ok());
  const RequestId g = staged.submit(make_request(20, 8, 9));
  expect_same_bytes(staged.wait(staged.submit(embed_request(30, 5))).done.embedding, e, "two stages, chunks of 7");
  EXPECT_FALSE(staged.wait(g).tokens.empty());
  fs::remove(path);
}

}  // namespace
}  // namespace strata::testing
