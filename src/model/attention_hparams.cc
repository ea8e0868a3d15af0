#include "model/attention_hparams.h"

#include <cmath>
#include <optional>
#include <string>

#include "model/metadata_readers.h"

namespace strata {

// Llama 4's attention (ArchTraits::llama4): llama.cpp's constants unless the file has the keys.
Status read_llama4_attention(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  hp->attn_chunk = 8192;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.chunk_size", true, &hp->attn_chunk));
  hp->attn_temp_scale = 0.1f;
  hp->attn_temp_length = 8192;
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".attention.temperature_scale", &hp->attn_temp_scale));
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.temperature_length", true, &hp->attn_temp_length));
  if (hp->attn_temp_scale < 0.0f) {
    return Status::Corrupt(gguf.path() + ": " + a + ".attention.temperature_scale must be >= 0");
  }
  hp->qk_l2_norm = hp->n_expert != 128;
  if (const GgufValue* v = gguf.find(a + ".use_qk_norm"); v != nullptr) {
    std::optional<bool> b = v->as_bool();
    if (!b) return Status::Corrupt(gguf.path() + ": " + a + ".use_qk_norm must be a bool");
    hp->qk_l2_norm = *b;
  }
  hp->expert_weight_input = true;
  return Status::Ok();
}

// Ministral 3's attention (ArchTraits::mistral3): its temperature over the original context,
// YaRN's ramp bounds, and the magnitude ratio of its two mscales (a file without
// yarn_log_multiplier keeps YaRN's own magnitude).
Status read_mistral3_attention(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  const std::string& f = gguf.path();
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".attention.temperature_scale", &hp->attn_temp_scale));
  if (!(hp->attn_temp_scale >= 0.0f) || !std::isfinite(hp->attn_temp_scale)) {
    return Status::Corrupt(f + ": " + a + ".attention.temperature_scale must be a finite number >= 0");
  }
  hp->attn_temp_every_layer = true;
  hp->attn_temp_length = hp->rope_orig_ctx;
  STRATA_RETURN_IF_ERROR(read_yarn_betas(gguf, a, &hp->rope_yarn_beta_fast, &hp->rope_yarn_beta_slow));
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".rope.scaling.yarn_log_multiplier", &hp->rope_yarn_log_mul));
  if (hp->rope_yarn_log_mul != 0.0f) {
    const float factor = 1.0f / hp->rope_freq_scale;
    auto mscale = [factor](float m) { return factor <= 1.0f ? 1.0f : 0.1f * m * std::log(factor) + 1.0f; };
    hp->rope_attn_factor *= mscale(1.0f) / mscale(hp->rope_yarn_log_mul);
  }
  return Status::Ok();
}

}  // namespace strata
