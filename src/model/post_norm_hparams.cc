#include "model/post_norm_hparams.h"

#include <string>

#include "model/metadata_readers.h"

namespace strata {
namespace {

// The sliding layers' period: attention.sliding_window_pattern, 4 when absent, at least 2 (every
// layer sliding would be a window with no full layer to carry the prefix chain).
Status read_sliding_period(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  hp->sliding_period = 4;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.sliding_window_pattern", true, &hp->sliding_period));
  if (hp->sliding_period < 2) {
    return Status::Corrupt(gguf.path() + ": " + a + ".attention.sliding_window_pattern must be at least 2");
  }
  return Status::Ok();
}

}  // namespace

Status read_olmo2(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  hp->pre_norms = false;
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "attention.sliding_window", true, 0, &hp->sliding_window));
  if (hp->sliding_window == 0) return Status::Ok();
  STRATA_RETURN_IF_ERROR(read_sliding_period(gguf, hp));
  hp->rope_freq_base_swa = hp->rope_freq_base;
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".rope.freq_base_swa", &hp->rope_freq_base_swa));
  if (!(hp->rope_freq_base_swa > 0.0f)) {
    return Status::Corrupt(gguf.path() + ": " + a + ".rope.freq_base_swa must be > 0");
  }
  return Status::Ok();
}

Status read_exaone4(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  hp->pre_norms = false;
  constexpr int kSlidingLayerCount = 64;  // llama.cpp's rule: EXAONE 4.0 32B's layers
  if (hp->n_layer != kSlidingLayerCount) return Status::Ok();
  hp->sliding_window = 4096;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.sliding_window", true, &hp->sliding_window));
  STRATA_RETURN_IF_ERROR(read_sliding_period(gguf, hp));
  hp->nope_layer_step = hp->sliding_period;
  float base_swa = hp->rope_freq_base;
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".rope.freq_base_swa", &base_swa));
  if (base_swa != hp->rope_freq_base) {
    return Status::Unsupported(gguf.path() + ": " + a + ".rope.freq_base_swa " + std::to_string(base_swa) +
                               " differs from rope.freq_base; EXAONE 4's sliding layers rotate with the global rope");
  }
  return Status::Ok();
}

}  // namespace strata
