#include "model/post_norm_hparams.h"

#include <algorithm>
#include <string>
#include <vector>

#include "model/metadata_readers.h"

namespace strata {
namespace {

// Which layers slide: attention.sliding_window_pattern as llama.cpp's converters write it, a flag
// per layer (true: slides), or a period (every layer but each period-th slides), 4 when absent.
// Some layer must attend over all keys (every layer sliding would leave no full layer to carry the
// prefix chain). With rope_where_sliding (EXAONE 4) only the sliding layers rotate.
Status read_sliding_layers(const GgufFile& gguf, bool rope_where_sliding, Hparams* hp) {
  const std::string key = hp->arch + ".attention.sliding_window_pattern";
  const GgufValue* v = gguf.find(key);
  if (v == nullptr || !v->is_array()) {
    hp->sliding_period = 4;
    STRATA_RETURN_IF_ERROR(read_count(gguf, hp->arch, "attention.sliding_window_pattern", true, &hp->sliding_period));
    if (hp->sliding_period < 2) return Status::Corrupt(gguf.path() + ": " + key + " must be at least 2");
    if (rope_where_sliding) hp->nope_layer_step = hp->sliding_period;
    return Status::Ok();
  }
  std::vector<uint64_t> flags;
  STRATA_RETURN_IF_ERROR(read_counts_per_layer(gguf, key, hp->n_layer, &flags));
  hp->sliding_layers.clear();
  for (uint64_t f : flags) hp->sliding_layers.push_back(f != 0 ? 1 : 0);
  if (std::find(hp->sliding_layers.begin(), hp->sliding_layers.end(), 0) == hp->sliding_layers.end()) {
    return Status::Corrupt(gguf.path() + ": " + key + " makes every layer slide; one must attend over all keys");
  }
  if (rope_where_sliding) hp->rotating_layers = hp->sliding_layers;
  return Status::Ok();
}

}  // namespace

Status read_olmo2(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  hp->pre_norms = false;
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "attention.sliding_window", true, 0, &hp->sliding_window));
  if (hp->sliding_window == 0) return Status::Ok();
  STRATA_RETURN_IF_ERROR(read_sliding_layers(gguf, /*rope_where_sliding=*/false, hp));
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
  STRATA_RETURN_IF_ERROR(read_sliding_layers(gguf, /*rope_where_sliding=*/true, hp));
  float base_swa = hp->rope_freq_base;
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".rope.freq_base_swa", &base_swa));
  if (base_swa != hp->rope_freq_base) {
    return Status::Unsupported(gguf.path() + ": " + a + ".rope.freq_base_swa " + std::to_string(base_swa) +
                               " differs from rope.freq_base; EXAONE 4's sliding layers rotate with the global rope");
  }
  return Status::Ok();
}

}  // namespace strata
