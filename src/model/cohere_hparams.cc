#include "model/cohere_hparams.h"

#include <optional>
#include <string>
#include <vector>

#include "model/metadata_readers.h"

namespace strata {

Status read_cohere2(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  float multiplier = 0.0f;
  STRATA_RETURN_IF_ERROR(read_required_positive(gguf, a + ".attention.layer_norm_epsilon", &hp->rms_eps));
  STRATA_RETURN_IF_ERROR(read_required_positive(gguf, a + ".logit_scale", &multiplier));
  hp->logit_scale = 1.0f / multiplier;
  hp->layer_norm = true;
  hp->parallel_block = true;
  hp->qk_norm_per_head_gains = true;  // only Command R+ has attn_q_norm
  return Status::Ok();
}

Status read_cohere2_moe(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  const std::string& f = gguf.path();
  if (gguf.find(a + ".logit_scale") == nullptr) return Status::NotFound(f + ": missing metadata key " + a + ".logit_scale");
  float multiplier = 0.0f;
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".logit_scale", &multiplier));
  if (multiplier < 0.0f) return Status::Corrupt(f + ": " + a + ".logit_scale must not be negative");
  if (multiplier > 0.0f) hp->logit_scale = 1.0f / multiplier;  // 0: unscaled, as llama.cpp reads it
  hp->parallel_block = true;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.sliding_window", false, &hp->sliding_window));
  std::vector<uint64_t> flags;  // a flag per layer, or one for every layer
  STRATA_RETURN_IF_ERROR(read_counts_per_layer(gguf, a + ".attention.sliding_window_pattern", hp->n_layer, &flags));
  for (int l = 0; l < hp->n_layer; ++l) {
    const bool slides = flags[static_cast<size_t>(l)] != 0;
    hp->sliding_layers.push_back(slides ? 1 : 0);
    // The full layers after the dense lead attend without rope.
    hp->rotating_layers.push_back(slides || l < hp->n_layer_dense_lead ? 1 : 0);
  }
  return Status::Ok();
}

}  // namespace strata
