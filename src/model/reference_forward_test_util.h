// Test support for the float64-reference tests: a fixture that writes a test model (test_model.h),
// runs the fast forward pass over kTokens random tokens (or as many as a Feed says, in chunks) and
// measures its logits against ReferenceForward's, with the bounds each weight type must stay
// within (why: the comment at the top of reference_forward_test.cc). Used by
// reference_forward_test.cc, arch_reference_test.cc and hybrid_reference_test.cc.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <ostream>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "base/thread_pool.h"
#include "gguf/gguf_file.h"
#include "model/contiguous_kv.h"
#include "model/model.h"
#include "model/reference_forward.h"
#include "model/test_model.h"

namespace strata::testing {

inline constexpr int kTokens = 24;

struct Bounds {
  double rms_rel;
  double max_rel;
};

inline Bounds bounds(DType type) {
  switch (type) {
    case DType::kF32: case DType::kF16: case DType::kBF16: return {1e-5, 3e-5};
    default: return {3e-2, 0.15};
  }
}

struct Case {
  std::string arch;
  DType type;
};

inline void PrintTo(const Case& c, std::ostream* os) { *os << c.arch << "-" << dtype_name(c.type); }

// How the fast path is fed: n_tokens positions, chunk of them per forward pass (0: all in one).
struct Feed {
  int n_tokens = kTokens;
  int chunk = 0;
};

// The fast path's logits over feed.n_tokens random tokens (seeded by seed, written to *tokens),
// feed.chunk positions per forward pass.
inline std::vector<float> fast_logits(const Model& m, DType kv_type, uint32_t seed, Feed feed,
                                      std::vector<int32_t>* tokens) {
  const int n_vocab = m.hparams().n_vocab;
  const int n_tokens = feed.n_tokens;
  const int chunk = feed.chunk > 0 ? feed.chunk : n_tokens;
  auto kv = std::move(ContiguousKv::Create(m.kv_layout(kv_type, 16), 1, n_tokens).value());
  auto scratch = m.make_scratch(chunk, n_tokens);
  ThreadPool pool(2);
  std::mt19937 rng(seed);
  std::vector<Row> rows;
  for (int pos = 0; pos < n_tokens; ++pos) {
    tokens->push_back(static_cast<int32_t>(rng() % static_cast<uint32_t>(n_vocab)));
    rows.push_back(Row{0, pos, tokens->back(), true});
  }
  std::vector<float> logits(static_cast<size_t>(n_tokens) * n_vocab);
  for (int first = 0; first < n_tokens; first += chunk) {
    const int n = std::min(chunk, n_tokens - first);
    m.forward(std::span<const Row>(rows).subspan(first, n), *kv, logits.data() + static_cast<size_t>(first) * n_vocab,
              *scratch, pool);
  }
  return logits;
}

class ReferenceForwardTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("strata-model-ref-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  struct Errors {
    double max_rel = INFINITY;  // largest |fast - reference| / RMS(reference logits at that position)
    double rms_rel = INFINITY;  // ||fast - reference|| / ||reference|| over all positions
  };

  // The fast path on spec's model against the reference on ref_spec's (spec's when null), the
  // model fitted to a context of n_ctx tokens and the reference to ref_n_ctx (n_ctx when < 0):
  // what picks Phi-3's LongRoPE factors; feed says how many positions and how many per forward pass.
  Errors errors(const TestModelSpec& spec, DType kv_type, const TestModelSpec* ref_spec = nullptr, int n_ctx = kTokens,
                int ref_n_ctx = -1, Feed feed = {}) {
    const std::string path = (dir_ / (test_model_name(spec) + ".gguf")).string();
    Status st = write_test_model(spec, path);
    EXPECT_TRUE(st.ok()) << st.ToString();
    auto model = Model::Load(path);
    std::string ref_path = path;
    if (ref_spec != nullptr) {
      ref_path = (dir_ / ("ref-" + test_model_name(*ref_spec) + ".gguf")).string();
      st = write_test_model(*ref_spec, ref_path);
      EXPECT_TRUE(st.ok()) << st.ToString();
    }
    auto gguf = GgufFile::Open(ref_path);
    EXPECT_TRUE(model.ok() && gguf.ok());
    if (!model.ok() || !gguf.ok()) return {};
    auto ref = ReferenceForward::Load(*gguf, ref_n_ctx < 0 ? n_ctx : ref_n_ctx);
    EXPECT_TRUE(ref.ok()) << ref.status().ToString();
    if (!ref.ok()) return {};

    (*model)->fit_context(n_ctx);
    std::vector<int32_t> tokens;
    const std::vector<float> logits = fast_logits(**model, kv_type, spec.seed, feed, &tokens);
    const LogitErrors e = logit_errors(*ref, tokens, logits.data());
    return {e.max_rel, e.rms_rel};
  }


  std::filesystem::path dir_;
};

inline void expect_within(const char* what, double rms_rel, double max_rel, const Bounds& b) {
  EXPECT_LT(rms_rel, b.rms_rel) << what << " rms_rel";
  EXPECT_LT(max_rel, b.max_rel) << what << " max_rel";
}

class ReferenceForwardVariantsTest : public ReferenceForwardTest {};

}  // namespace strata::testing
