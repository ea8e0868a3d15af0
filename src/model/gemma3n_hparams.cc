#include "model/gemma3n_hparams.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "model/gemma4_hparams.h"
#include "model/metadata_readers.h"

namespace strata {
namespace {

// llama.cpp's fixed sparsity (n_layer_sparsity, f_sparsity_std_mul): the normal distribution's
// 95th percentile in the first 10 layers.
constexpr int kDefaultSparseLayers = 10;
constexpr float kDefaultSparsityStd = 1.6448533535003662f;

// attention.sliding_window_pattern: a flag per layer (the converter's), or one period; absent:
// the traits' period (5).
Status read_sliding_pattern(const GgufFile& gguf, Hparams* hp) {
  const std::string key = hp->arch + ".attention.sliding_window_pattern";
  const GgufValue* v = gguf.find(key);
  if (v == nullptr) return Status::Ok();
  if (v->is_array()) {
    std::vector<uint64_t> flags;
    STRATA_RETURN_IF_ERROR(read_per_layer(gguf, key, hp->n_layer, &flags));
    for (uint64_t flag : flags) hp->sliding_layers.push_back(flag != 0 ? 1 : 0);
    return Status::Ok();
  }
  return read_count(gguf, hp->arch, "attention.sliding_window_pattern", false, &hp->sliding_period);
}

// activation_sparsity_scale: a multiplier per layer, minus infinity for a dense layer.
Status read_sparsity(const GgufFile& gguf, Hparams* hp) {
  const std::string key = hp->arch + ".activation_sparsity_scale";
  const GgufValue* v = gguf.find(key);
  if (v == nullptr) {
    hp->ffn_sparsity_std.assign(static_cast<size_t>(hp->n_layer), -std::numeric_limits<float>::infinity());
    std::fill_n(hp->ffn_sparsity_std.begin(), std::min(hp->n_layer, kDefaultSparseLayers), kDefaultSparsityStd);
    return Status::Ok();
  }
  if (!v->is_array() || v->array_size() != static_cast<size_t>(hp->n_layer)) {
    return Status::Corrupt(gguf.path() + ": " + key + " must be an array of a number per layer (" +
                           std::to_string(hp->n_layer) + ")");
  }
  for (size_t i = 0; i < v->array_size(); ++i) {
    const std::optional<double> f = v->float_at(i);
    if (!f || std::isnan(*f) || *f == std::numeric_limits<double>::infinity()) {
      return Status::Corrupt(gguf.path() + ": " + key + "[" + std::to_string(i) +
                             "] must be a finite number, or minus infinity for a dense layer");
    }
    hp->ffn_sparsity_std.push_back(static_cast<float>(*f));
  }
  return Status::Ok();
}

}  // namespace

Status read_gemma3n(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  const std::string& f = gguf.path();
  hp->n_altup = 4;
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "altup.num_inputs", true, 0, &hp->n_altup));
  if (hp->n_altup < 2 || hp->n_altup > 16) {
    return Status::Unsupported(f + ": " + a + ".altup.num_inputs " + std::to_string(hp->n_altup) +
                               " (AltUp runs 2 to 16 streams)");
  }
  int active = 0;
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "altup.active_idx", true, 0, &active));
  if (active != 0) {
    return Status::Unsupported(f + ": " + a + ".altup.active_idx " + std::to_string(active) +
                               " (only stream 0 can be the one the layers run on)");
  }
  STRATA_RETURN_IF_ERROR(read_sliding_pattern(gguf, hp));
  STRATA_RETURN_IF_ERROR(read_sparsity(gguf, hp));
  STRATA_RETURN_IF_ERROR(read_gemma_small_model_parts(gguf, hp));
  if (hp->n_embd_per_layer < 1) {
    return Status::NotFound(f + ": missing metadata key " + a + ".embedding_length_per_layer_input (Gemma 3n's " +
                            "per-layer inputs)");
  }
  const GgufTensor* laurel = gguf.find_tensor("blk.0.laurel_l.weight");
  if (laurel == nullptr || laurel->dims.size() != 2 || laurel->dims[1] < 1 || laurel->dims[1] > (1u << 20)) {
    return Status::NotFound(f + ": tensor blk.0.laurel_l.weight (Gemma 3n's laurel branch, 2-D) is missing or has " +
                            "no rows");
  }
  hp->laurel_rank = static_cast<int>(laurel->dims[1]);
  hp->attn_scale = 1.0f;  // q and k are RMS-normed per head: no 1 / sqrt(head size)
  hp->v_norm = true;
  hp->final_softcap = 30.0f;
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".final_logit_softcapping", &hp->final_softcap));
  if (!(hp->final_softcap > 0.0f)) return Status::Corrupt(f + ": " + a + ".final_logit_softcapping must be > 0");
  return Status::Ok();
}

}  // namespace strata
