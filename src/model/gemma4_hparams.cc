#include "model/gemma4_hparams.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "model/metadata_readers.h"

namespace strata {
namespace {

// The K/V heads of the sliding and the full layers: attention.head_count_kv per layer (one
// value for each kind), or one value for all.
Status read_kv_heads(const GgufFile& gguf, Hparams* hp) {
  const std::string key = hp->arch + ".attention.head_count_kv";
  const GgufValue* v = gguf.find(key);
  if (v == nullptr || !v->is_array()) {
    hp->n_head_kv_swa = hp->n_head_kv;
    return Status::Ok();
  }
  std::vector<uint64_t> heads;
  STRATA_RETURN_IF_ERROR(read_per_layer(gguf, key, hp->n_layer, &heads));
  int found[2] = {0, 0};  // full, sliding
  for (int l = 0; l < hp->n_layer; ++l) {
    const int kind = hp->layer_slides(l) ? 1 : 0;
    const int n = static_cast<int>(heads[static_cast<size_t>(l)]);
    if (n < 1 || (found[kind] != 0 && found[kind] != n)) {
      return Status::Unsupported(gguf.path() + ": " + key + " gives layer " + std::to_string(l) + " " +
                                 std::to_string(n) + " K/V heads; every " + (kind ? "sliding" : "full") +
                                 " layer must have the same count, at least 1");
    }
    found[kind] = n;
  }
  hp->n_head_kv = found[0] != 0 ? found[0] : found[1];
  hp->n_head_kv_swa = found[1] != 0 ? found[1] : found[0];
  return Status::Ok();
}

// The sliding layers' heads and rope; both kinds of layer must exist when their heads differ
// (the K/V cache keeps the two kinds in groups of their own).
Status read_sliding_heads(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  const std::string& f = gguf.path();
  hp->head_dim_swa = hp->head_dim;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.key_length_swa", true, &hp->head_dim_swa));
  int value_length = hp->head_dim_swa;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.value_length_swa", true, &value_length));
  if (value_length != hp->head_dim_swa) {
    return Status::Unsupported(f + ": attention.value_length_swa differs from key_length_swa");
  }
  hp->n_rot_swa = hp->head_dim_swa;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "rope.dimension_count_swa", true, &hp->n_rot_swa));
  if (hp->head_dim_swa % 2 != 0 || hp->n_rot_swa % 2 != 0 || hp->n_rot_swa > hp->head_dim_swa) {
    return Status::Corrupt(f + ": sliding layers' rope dimension " + std::to_string(hp->n_rot_swa) + " and head size " +
                           std::to_string(hp->head_dim_swa) + " must be even, rope <= head size");
  }
  if (hp->n_head % hp->n_head_kv_swa != 0) {
    return Status::Corrupt(f + ": head_count " + std::to_string(hp->n_head) + " is not a multiple of the sliding " +
                           "layers' head_count_kv " + std::to_string(hp->n_head_kv_swa));
  }
  hp->rope_freq_base_swa = 10000.0f;
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".rope.freq_base_swa", &hp->rope_freq_base_swa));
  if (!(hp->rope_freq_base_swa > 0.0f)) return Status::Corrupt(f + ": " + a + ".rope.freq_base_swa must be > 0");
  bool any[2] = {false, false};
  for (int l = 0; l < hp->n_layer; ++l) any[hp->layer_slides(l) ? 1 : 0] = true;
  const bool same = hp->head_dim_swa == hp->head_dim && hp->n_head_kv_swa == hp->n_head_kv;
  if (!same && !(any[0] && any[1])) {
    return Status::Unsupported(f + ": sliding layers' heads differ from the full layers', but the file has only " +
                               (any[1] ? "sliding" : "full") + " layers");
  }
  return Status::Ok();
}

}  // namespace

Status read_gemma_small_model_parts(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  const std::string& f = gguf.path();
  if (const GgufValue* v = gguf.find(a + ".feed_forward_length"); v != nullptr && v->is_array()) {
    std::vector<uint64_t> widths;
    STRATA_RETURN_IF_ERROR(read_per_layer(gguf, a + ".feed_forward_length", hp->n_layer, &widths));
    hp->n_ff = 0;
    for (uint64_t w : widths) {
      if (w == 0) return Status::Corrupt(f + ": " + a + ".feed_forward_length has a layer of width 0");
      hp->layer_n_ff.push_back(static_cast<int>(w));
      hp->n_ff = std::max(hp->n_ff, static_cast<int>(w));
    }
  }
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "embedding_length_per_layer_input", true, 0, &hp->n_embd_per_layer));
  int shared = 0;
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "attention.shared_kv_layers", true, 0, &shared));
  if (shared == 0) return Status::Ok();
  if (shared >= hp->n_layer) {
    return Status::Corrupt(f + ": " + a + ".attention.shared_kv_layers " + std::to_string(shared) +
                           " leaves none of the " + std::to_string(hp->n_layer) + " layers with K/V of its own");
  }
  hp->n_layer_kv = hp->n_layer - shared;
  for (int l = 0; l < hp->n_layer; ++l) {
    int source = l;
    if (l >= hp->n_layer_kv) {
      source = -1;
      for (int k = hp->n_layer_kv - 1; k >= 0 && source < 0; --k) {
        if (hp->layer_slides(k) == hp->layer_slides(l)) source = k;
      }
    }
    if (source < 0) {
      return Status::Corrupt(f + ": layer " + std::to_string(l) + " shares the K/V of an earlier " +
                             (hp->layer_slides(l) ? "sliding" : "full") + " layer, and none of the first " +
                             std::to_string(hp->n_layer_kv) + " is one");
    }
    hp->kv_source.push_back(source);
  }
  return Status::Ok();
}

Status read_gemma4(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.sliding_window", false, &hp->sliding_window));
  std::vector<uint64_t> pattern;
  STRATA_RETURN_IF_ERROR(read_per_layer(gguf, a + ".attention.sliding_window_pattern", hp->n_layer, &pattern));
  for (uint64_t flag : pattern) hp->sliding_layers.push_back(flag != 0 ? 1 : 0);
  STRATA_RETURN_IF_ERROR(read_kv_heads(gguf, hp));
  STRATA_RETURN_IF_ERROR(read_sliding_heads(gguf, hp));
  STRATA_RETURN_IF_ERROR(read_gemma_small_model_parts(gguf, hp));
  hp->attn_scale = 1.0f;  // q and k are RMS-normed per head: no 1 / sqrt(head size)
  hp->v_norm = true;
  hp->moe_beside_dense = hp->n_expert > 0;
  hp->final_softcap = 30.0f;
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".final_logit_softcapping", &hp->final_softcap));
  if (!(hp->final_softcap > 0.0f)) {
    return Status::Corrupt(gguf.path() + ": " + a + ".final_logit_softcapping must be > 0");
  }
  return Status::Ok();
}

}  // namespace strata
