// `strata quantize`'s library part on ../shared/models/stories260K.gguf (F32): every file type
// it offers gives a file that Model::Load reads and decodes to finite logits, with the input's
// metadata kept and general.file_type set; bad input fails with a message naming the problem
// and leaves no output file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "gguf/gguf_value_writer.h"
#include "kernels/kernels.h"
#include "model/contiguous_kv.h"
#include "model/model.h"
#include "modelgen/model_quantizer.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

const std::string kStories = std::string(STRATA_SHARED_DIR) + "/models/stories260K.gguf";

std::string encoded(const GgufValue& v) {
  std::string out;
  EXPECT_TRUE(append_gguf_value(&out, v, "").ok());
  return out;
}

class QuantizeLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-quantize-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  QuantizeOptions options(const std::string& type, const std::string& out_name) const {
    QuantizeOptions o;
    o.in_path = kStories;
    o.out_path = (dir_ / out_name).string();
    o.file_type = type;
    o.n_threads = 2;
    return o;
  }

  fs::path dir_;
};

// Prefill of 6 tokens, then 6 greedy steps; every logit finite.
void expect_decodes(const Model& m, const std::string& type) {
  constexpr int kPrompt = 6, kMax = 12;
  const int n_vocab = m.hparams().n_vocab;
  auto kv = std::move(ContiguousKv::Create(m.kv_layout(DType::kF32, 16), 1, kMax).value());
  auto scratch = m.make_scratch(kMax, kMax);
  ThreadPool pool(2);
  std::vector<Row> rows;
  for (int pos = 0; pos < kPrompt; ++pos) rows.push_back(Row{0, pos, (pos * 37 + 5) % n_vocab, true});
  std::vector<float> logits(static_cast<size_t>(kPrompt) * n_vocab);
  m.forward(rows, *kv, logits.data(), *scratch, pool);
  int32_t token = kernels::argmax(logits.data() + static_cast<size_t>(kPrompt - 1) * n_vocab, n_vocab);
  std::vector<float> step(n_vocab);
  for (int pos = kPrompt; pos < kMax; ++pos) {
    const Row row{0, pos, token, true};
    m.forward(std::span<const Row>(&row, 1), *kv, step.data(), *scratch, pool);
    for (float v : step) ASSERT_TRUE(std::isfinite(v)) << type << " at position " << pos;
    token = kernels::argmax(step.data(), n_vocab);
  }
}

TEST_F(QuantizeLoadTest, EveryFileTypeLoadsDecodesAndKeepsTheMetadata) {
  auto in = GgufFile::Open(kStories);
  ASSERT_TRUE(in.ok());
  struct Want {
    const char* type;
    uint32_t file_type;
    DType attn_q;  // 64 wide: 256-blocks fall back
  };
  for (Want w : {Want{"Q8_0", 7, DType::kQ8_0}, Want{"Q6_K", 18, DType::kQ8_0}, Want{"Q5_K_M", 17, DType::kQ5_1},
                 Want{"Q4_K_M", 15, DType::kQ5_0}, Want{"Q4_0", 2, DType::kQ4_0}, Want{"Q3_K_M", 12, DType::kIQ4_NL},
                 Want{"Q2_K", 10, DType::kIQ4_NL}, Want{"IQ4_XS", 30, DType::kIQ4_NL}, Want{"f16", 1, DType::kF16},
                 Want{"MXFP4_MOE", 38, DType::kQ8_0}}) {  // a dense model: no experts, all Q8_0
    SCOPED_TRACE(w.type);
    const QuantizeOptions o = options(w.type, std::string(w.type) + ".gguf");
    auto report = quantize_model(o);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    auto out = GgufFile::Open(o.out_path);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->get_uint("general.file_type"), w.file_type);
    EXPECT_EQ(out->get_uint("general.quantization_version"), 2u);
    for (const auto& [key, value] : in->metadata()) {
      const GgufValue* kept = out->find(key);
      ASSERT_NE(kept, nullptr) << key;
      EXPECT_EQ(encoded(*kept), encoded(value)) << key;
    }
    EXPECT_EQ(out->find_tensor("blk.0.attn_q.weight")->type, w.attn_q);
    EXPECT_EQ(out->find_tensor("blk.0.attn_norm.weight")->type, DType::kF32);
    EXPECT_EQ(out->tensors().size(), in->tensors().size());
    auto model = Model::Load(o.out_path);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    expect_decodes(**model, w.type);
  }
}

TEST_F(QuantizeLoadTest, ProgressReachesTheInputSize) {
  QuantizeOptions o = options("Q8_0", "p.gguf");
  uint64_t last = 0, total = 0;
  int calls = 0;
  o.progress = [&](uint64_t done, uint64_t all) {
    EXPECT_GE(done, last);
    last = done;
    total = all;
    ++calls;
  };
  ASSERT_TRUE(quantize_model(o).ok());
  EXPECT_EQ(calls, 48);  // one per tensor
  EXPECT_EQ(last, total);
  EXPECT_EQ(total, GgufFile::Open(kStories)->total_tensor_bytes());
}

TEST_F(QuantizeLoadTest, BadInputIsRefusedAndLeavesNoOutput) {
  auto unknown = quantize_model(options("Q9_K", "a.gguf"));
  EXPECT_NE(unknown.status().ToString().find("unknown type 'Q9_K'"), std::string::npos) << unknown.status().ToString();
  auto iq2 = quantize_model(options("iq2_xxs", "b.gguf"));
  EXPECT_NE(iq2.status().ToString().find("IQ2_XXS needs an importance matrix"), std::string::npos)
      << iq2.status().ToString();

  QuantizeOptions quantized = options("Q4_K_M", "c.gguf");
  quantized.in_path = std::string(STRATA_SHARED_DIR) + "/models/stories260K-q4_k_m-fallback.gguf";
  auto requant = quantize_model(quantized);
  EXPECT_NE(requant.status().ToString().find("reads F32, F16 or BF16 models only"), std::string::npos)
      << requant.status().ToString();

  QuantizeOptions missing = options("Q8_0", "d.gguf");
  missing.in_path = (dir_ / "none.gguf").string();
  EXPECT_FALSE(quantize_model(missing).ok());

  QuantizeOptions unwritable = options("Q8_0", "no-such-dir/e.gguf");
  auto io = quantize_model(unwritable);
  EXPECT_NE(io.status().ToString().find("no-such-dir/e.gguf.tmp: open"), std::string::npos) << io.status().ToString();
  EXPECT_TRUE(fs::is_empty(dir_));
}

}  // namespace
}  // namespace strata
