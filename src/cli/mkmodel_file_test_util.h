// For the mkmodel load tests (tests only): a fixture that writes specs into a directory of the
// suite's own, and a fixed prompt's logits from the fast forward pass, whole or in chunks, with their
// errors against the float64 reference. Not thread-safe (one test at a time, as GoogleTest runs them).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "base/thread_pool.h"
#include "base/suite_dir_test_fixture.h"
#include "gguf/gguf_file.h"
#include "model/contiguous_kv.h"
#include "model/model.h"
#include "model/reference_forward.h"
#include "modelgen/model_generator.h"

namespace strata::testing {

class MkmodelFileTest : public SuiteDirTest {
 protected:
  // spec written in type under name (seed_ its weights' seed); the file's path.
  Result<std::string> write(const ModelSpec& spec, DType type, const std::string& name) {
    GenerateOptions o;
    o.type = type;
    o.seed = seed_;
    o.n_threads = 2;
    o.out_path = (dir_ / (name + "-" + std::string(dtype_name(type)) + ".gguf")).string();
    auto r = generate_model_from_spec(spec, o);
    if (!r.ok()) return r.status();
    return o.out_path;
  }

  uint64_t seed_ = 13;
};

// The fixed prompt of n_tokens the load tests feed: token (pos * 37 + 5) mod n_vocab at pos.
inline std::vector<int32_t> fixed_prompt(int n_tokens, int n_vocab) {
  std::vector<int32_t> tokens;
  for (int pos = 0; pos < n_tokens; ++pos) tokens.push_back((pos * 37 + 5) % n_vocab);
  return tokens;
}

// Every position's logits of fixed_prompt(sum of chunks), from forward passes over chunks of the given
// sizes (one sequence, an F32 cache); each logit finite.
inline std::vector<float> fixed_prompt_logits(const Model& m, const std::vector<int>& chunks) {
  int n_tokens = 0;
  for (int chunk : chunks) n_tokens += chunk;
  const int n_vocab = m.hparams().n_vocab;
  const std::vector<int32_t> tokens = fixed_prompt(n_tokens, n_vocab);
  auto kv = std::move(ContiguousKv::Create(m.kv_layout(DType::kF32, 16), 1, n_tokens).value());
  auto scratch = m.make_scratch(n_tokens, n_tokens);
  ThreadPool pool(2);
  std::vector<float> logits(static_cast<size_t>(n_tokens) * n_vocab);
  int pos = 0;
  for (int chunk : chunks) {
    std::vector<Row> rows;
    for (int i = 0; i < chunk; ++i, ++pos) rows.push_back(Row{0, pos, tokens[static_cast<size_t>(pos)], true});
    m.forward(rows, *kv, logits.data() + static_cast<size_t>(pos - chunk) * n_vocab, *scratch, pool);
  }
  for (float x : logits) EXPECT_TRUE(std::isfinite(x));
  return logits;
}

// The model at path against the float64 reference over fixed_prompt(n_tokens), fed in one pass: the
// relative RMS and largest error of the logits (infinite, the failure recorded, when either won't load).
inline LogitErrors fixed_prompt_reference_errors(const std::string& path, int n_tokens) {
  auto model = Model::Load(path);
  auto gguf = GgufFile::Open(path);
  EXPECT_TRUE(model.ok() && gguf.ok()) << (model.ok() ? "" : model.status().ToString());
  if (!model.ok() || !gguf.ok()) return {INFINITY, INFINITY};
  auto ref = ReferenceForward::Load(*gguf);
  EXPECT_TRUE(ref.ok()) << ref.status().ToString();
  if (!ref.ok()) return {INFINITY, INFINITY};
  const std::vector<float> logits = fixed_prompt_logits(**model, {n_tokens});
  return logit_errors(*ref, fixed_prompt(n_tokens, (*model)->hparams().n_vocab), logits.data());
}

}  // namespace strata::testing
