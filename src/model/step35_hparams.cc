#include "model/step35_hparams.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "model/metadata_readers.h"

namespace strata {
namespace {

// A per-layer value that must be one value for the full layers and one for the sliding ones:
// *full and *sliding from the first n_layer entries (the blocks after them are the
// multi-token-prediction ones). A scalar key gives both; an absent one leaves them.
template <typename T>
Status split_by_kind(const GgufFile& gguf, const std::string& key, const Hparams& hp, const std::vector<T>& values,
                     T* full, T* sliding) {
  bool seen[2] = {false, false};
  T found[2] = {T{}, T{}};
  for (int l = 0; l < hp.n_layer; ++l) {
    const int kind = hp.layer_slides(l) ? 1 : 0;
    const T v = values[static_cast<size_t>(l)];
    if (seen[kind] && found[kind] != v) {
      return Status::Unsupported(gguf.path() + ": " + key + " differs between two " + (kind ? "sliding" : "full") +
                                 " layers (at layer " + std::to_string(l) + "); one value for each kind is supported");
    }
    seen[kind] = true;
    found[kind] = v;
  }
  if (seen[0]) *full = found[0];
  if (seen[1]) *sliding = found[1];
  if (!seen[0]) *full = found[1];
  if (!seen[1]) *sliding = found[0];
  return Status::Ok();
}

Status read_counts_by_kind(const GgufFile& gguf, const std::string& key, int n_blocks, const Hparams& hp, int* full,
                           int* sliding) {
  if (gguf.find(key) == nullptr) return Status::Ok();
  std::vector<uint64_t> counts;
  STRATA_RETURN_IF_ERROR(read_counts_per_layer(gguf, key, n_blocks, &counts));
  std::vector<int> ints(counts.begin(), counts.end());
  STRATA_RETURN_IF_ERROR(split_by_kind(gguf, key, hp, ints, full, sliding));
  if (*full < 1 || *sliding < 1) return Status::Corrupt(gguf.path() + ": " + key + " has a layer of 0");
  return Status::Ok();
}

// The heads of both kinds: query heads may differ between them, K/V heads must divide them.
Status read_heads(const GgufFile& gguf, int n_blocks, Hparams* hp) {
  const std::string& a = hp->arch;
  hp->n_head_swa = hp->n_head;
  STRATA_RETURN_IF_ERROR(read_counts_by_kind(gguf, a + ".attention.head_count", n_blocks, *hp, &hp->n_head,
                                             &hp->n_head_swa));
  hp->n_head_kv_swa = hp->n_head_kv;
  STRATA_RETURN_IF_ERROR(read_counts_by_kind(gguf, a + ".attention.head_count_kv", n_blocks, *hp, &hp->n_head_kv,
                                             &hp->n_head_kv_swa));
  if (hp->n_head % hp->n_head_kv != 0 || hp->n_head_swa % hp->n_head_kv_swa != 0) {
    return Status::Corrupt(gguf.path() + ": the query heads (" + std::to_string(hp->n_head) + " full, " +
                           std::to_string(hp->n_head_swa) + " sliding) are not multiples of the K/V heads (" +
                           std::to_string(hp->n_head_kv) + ", " + std::to_string(hp->n_head_kv_swa) + ")");
  }
  hp->head_dim_swa = hp->head_dim;
  return Status::Ok();
}

// The window (attention.sliding_window), which layers slide (attention.sliding_window_pattern, over
// every block) and the heads of each kind (read_heads): Step 3.5's and MiMo-V2's layer kinds.
Status read_layer_kinds(const GgufFile& gguf, int n_blocks, Hparams* hp) {
  const std::string& a = hp->arch;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.sliding_window", false, &hp->sliding_window));
  std::vector<uint64_t> pattern;
  STRATA_RETURN_IF_ERROR(read_per_layer(gguf, a + ".attention.sliding_window_pattern", n_blocks, &pattern));
  for (int l = 0; l < hp->n_layer; ++l) hp->sliding_layers.push_back(pattern[static_cast<size_t>(l)] != 0 ? 1 : 0);
  return read_heads(gguf, n_blocks, hp);
}

// The rotated widths of both kinds from rope.dimension_count_per_layer when the file has it (one
// for each kind), else as already set; each must be even and at most the head.
Status read_rotated_widths(const GgufFile& gguf, int n_blocks, Hparams* hp) {
  const std::string key = hp->arch + ".rope.dimension_count_per_layer";
  if (gguf.find(key) != nullptr) {
    std::vector<uint64_t> dims;
    STRATA_RETURN_IF_ERROR(read_per_layer(gguf, key, n_blocks, &dims));
    std::vector<int> ints(dims.begin(), dims.end());
    STRATA_RETURN_IF_ERROR(split_by_kind(gguf, key, *hp, ints, &hp->n_rot, &hp->n_rot_swa));
  }
  for (int n_rot : {hp->n_rot, hp->n_rot_swa}) {
    if (n_rot < 2 || n_rot % 2 != 0 || n_rot > hp->head_dim) {
      return Status::Corrupt(gguf.path() + ": a rotated width of " + std::to_string(n_rot) + " must be even, 2.." +
                             std::to_string(hp->head_dim) + " (the head size)");
    }
  }
  return Status::Ok();
}

// Rotated dims (rope.dimension_count_per_layer, or half of rope.dimension_count in a full layer
// and all of it in a sliding one, as llama.cpp reads them) and the sliding layers' base.
Status read_rope(const GgufFile& gguf, int n_blocks, Hparams* hp) {
  const std::string& a = hp->arch;
  const std::string& f = gguf.path();
  hp->n_rot_swa = hp->n_rot;  // rope.dimension_count, the head size when absent
  hp->n_rot /= 2;
  STRATA_RETURN_IF_ERROR(read_rotated_widths(gguf, n_blocks, hp));
  hp->rope_freq_base_swa = 0.0f;
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".rope.freq_base_swa", &hp->rope_freq_base_swa));
  if (gguf.find(a + ".rope.freq_base_per_layer") != nullptr) {
    std::vector<float> bases;
    STRATA_RETURN_IF_ERROR(read_per_layer_reals(gguf, a + ".rope.freq_base_per_layer", n_blocks, &bases));
    STRATA_RETURN_IF_ERROR(split_by_kind(gguf, a + ".rope.freq_base_per_layer", *hp, bases, &hp->rope_freq_base,
                                         &hp->rope_freq_base_swa));
  } else if (gguf.find(a + ".rope.freq_base_swa") == nullptr) {
    return Status::NotFound(f + ": missing metadata key " + a + ".rope.freq_base_swa (or rope.freq_base_per_layer)");
  }
  if (!(hp->rope_freq_base > 0.0f) || !(hp->rope_freq_base_swa > 0.0f)) {
    return Status::Corrupt(f + ": " + a + "'s rope bases must be > 0");
  }
  hp->rope_freqs_padded = true;
  int mask = 1;
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "rope.scaling.apply_mask", true, 0, &mask));
  if (mask != 1 && has_tensor(gguf, "rope_freqs.weight")) {
    return Status::Unsupported(f + ": " + a + ".rope.scaling.apply_mask " + std::to_string(mask) +
                               ": rope_freqs on other layers than the full ones (mask 1) is not supported");
  }
  return Status::Ok();
}

// A layer's SwiGLU limits from the first key present of two names; each >= 0.
Status read_limits(const GgufFile& gguf, const std::string& key, const std::string& other_key, int n_blocks,
                   const Hparams& hp, std::vector<float>* out) {
  const std::string& name = gguf.find(key) != nullptr ? key : other_key;
  if (gguf.find(name) == nullptr) {
    return Status::NotFound(gguf.path() + ": missing metadata key " + key + " (or " + other_key + ")");
  }
  return read_swiglu_limits(gguf, name, n_blocks, hp.n_layer, /*scalar_ok=*/false, out);
}

// Laguna's sliding layers: the pattern's flags, or the layers whose head count differs from the
// first layer's (the converter writes no pattern).
Status read_laguna_pattern(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  std::vector<uint64_t> flags(static_cast<size_t>(hp->n_layer), 0);
  if (gguf.find(a + ".attention.sliding_window_pattern") != nullptr) {
    STRATA_RETURN_IF_ERROR(read_per_layer(gguf, a + ".attention.sliding_window_pattern", hp->n_layer, &flags));
  } else if (const GgufValue* heads = gguf.find(a + ".attention.head_count"); heads != nullptr && heads->is_array()) {
    std::vector<uint64_t> counts;
    STRATA_RETURN_IF_ERROR(read_per_layer(gguf, a + ".attention.head_count", hp->n_layer, &counts));
    for (size_t l = 0; l < counts.size(); ++l) flags[l] = counts[l] != counts[0] ? 1 : 0;
  }
  for (uint64_t flag : flags) hp->sliding_layers.push_back(flag != 0 ? 1 : 0);
  return Status::Ok();
}

// Laguna's rotated dims and bases: the full layers' n_rot (half a head when the file says none),
// the sliding layers' n_rot_swa (the whole head) and base (the full layers' when absent).
Status read_laguna_rope(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  const std::string& f = gguf.path();
  if (gguf.find(a + ".rope.dimension_count") == nullptr && hp->sliding_window > 0) hp->n_rot = hp->head_dim / 2;
  hp->n_rot_swa = hp->head_dim;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "rope.dimension_count_swa", true, &hp->n_rot_swa));
  STRATA_RETURN_IF_ERROR(read_rotated_widths(gguf, hp->n_layer, hp));
  hp->rope_freq_base_swa = hp->rope_freq_base;
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".rope.freq_base_swa", &hp->rope_freq_base_swa));
  if (!(hp->rope_freq_base_swa > 0.0f)) return Status::Corrupt(f + ": " + a + ".rope.freq_base_swa must be > 0");
  STRATA_RETURN_IF_ERROR(read_yarn_betas(gguf, a, &hp->rope_yarn_beta_fast, &hp->rope_yarn_beta_slow));
  float ext_factor = 1.0f, yarn_attn_factor = 1.0f;
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".rope.scaling.yarn_ext_factor", &ext_factor));
  if (ext_factor != 1.0f && ext_factor != -1.0f) {  // -1: llama.cpp's "the type's default"
    return Status::Unsupported(f + ": " + a + ".rope.scaling.yarn_ext_factor " + std::to_string(ext_factor) +
                               " is not supported (1)");
  }
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".rope.scaling.yarn_attn_factor", &yarn_attn_factor));
  if (!(yarn_attn_factor > 0.0f)) return Status::Corrupt(f + ": " + a + ".rope.scaling.yarn_attn_factor must be > 0");
  hp->rope_attn_factor *= yarn_attn_factor;
  return Status::Ok();
}

// MiMo-V2's dense layers: those without a router (blk.N.ffn_gate_inp), which must all come first.
Status read_mimo2_dense_lead(const GgufFile& gguf, Hparams* hp) {
  auto routed = [&](int l) { return has_tensor(gguf, "blk." + std::to_string(l) + ".ffn_gate_inp.weight"); };
  int lead = 0;
  while (lead < hp->n_layer && !routed(lead)) ++lead;
  for (int l = lead; l < hp->n_layer; ++l) {
    if (!routed(l)) {
      return Status::Unsupported(gguf.path() + ": layer " + std::to_string(l) + " has no router (blk." +
                                 std::to_string(l) + ".ffn_gate_inp.weight) after layers with one; only leading "
                                 "dense layers are supported");
    }
  }
  if (lead > 0 && hp->n_ff == 0) {
    return Status::NotFound(gguf.path() + ": missing metadata key " + hp->arch +
                            ".feed_forward_length (the width of the leading dense layers)");
  }
  hp->n_layer_dense_lead = lead;
  return Status::Ok();
}

// MiMo-V2's sliding layers' heads, rotated dims and rope base: the same head widths as the full
// layers' (key_length_swa / value_length_swa, when present, must say so), rope.dimension_count_swa
// (the full layers' when absent) and rope.freq_base_swa (required).
Status read_mimo2_sliding(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  const std::string& f = gguf.path();
  const int value_length = hp->v_head_dim > 0 ? hp->v_head_dim : hp->head_dim;
  for (auto [suffix, want] : {std::pair{"attention.key_length_swa", hp->head_dim},
                              std::pair{"attention.value_length_swa", value_length}}) {
    int width = want;
    STRATA_RETURN_IF_ERROR(read_count(gguf, a, suffix, true, &width));
    if (width != want) {
      return Status::Unsupported(f + ": " + a + "." + suffix + " " + std::to_string(width) +
                                 " differs from the full layers' " + std::to_string(want) + "; one width is supported");
    }
  }
  hp->n_rot_swa = hp->n_rot;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "rope.dimension_count_swa", true, &hp->n_rot_swa));
  STRATA_RETURN_IF_ERROR(read_rotated_widths(gguf, hp->n_layer, hp));
  if (gguf.find(a + ".rope.freq_base_swa") == nullptr) {
    return Status::NotFound(f + ": missing metadata key " + a + ".rope.freq_base_swa");
  }
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".rope.freq_base_swa", &hp->rope_freq_base_swa));
  if (!(hp->rope_freq_base_swa > 0.0f)) return Status::Corrupt(f + ": " + a + ".rope.freq_base_swa must be > 0");
  return Status::Ok();
}

}  // namespace

Status read_mimo2(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  const int n_blocks = hp->n_layer + hp->n_nextn_layers;
  STRATA_RETURN_IF_ERROR(read_layer_kinds(gguf, n_blocks, hp));
  STRATA_RETURN_IF_ERROR(read_mimo2_sliding(gguf, hp));
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".attention.value_scale", &hp->v_scale));
  if (!(hp->v_scale > 0.0f) || !std::isfinite(hp->v_scale)) {
    return Status::Corrupt(gguf.path() + ": " + a + ".attention.value_scale must be a positive finite number");
  }
  return read_mimo2_dense_lead(gguf, hp);
}

Status read_laguna(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "attention.sliding_window", false, 0, &hp->sliding_window));
  STRATA_RETURN_IF_ERROR(read_laguna_pattern(gguf, hp));
  STRATA_RETURN_IF_ERROR(read_heads(gguf, hp->n_layer, hp));
  STRATA_RETURN_IF_ERROR(read_laguna_rope(gguf, hp));
  if (const GgufTensor* gate = gguf.find_tensor("blk.0.attn_gate.weight"); gate != nullptr) {
    if (gate->dims.size() == 2 && gate->dims[1] == static_cast<uint64_t>(hp->n_head) * static_cast<uint64_t>(hp->head_dim) &&
        hp->head_dim > 1) {
      return Status::Unsupported(gguf.path() + ": blk.0.attn_gate.weight gates every value (Laguna M.1); a gate per "
                                 "head (Laguna XS.2) is supported");
    }
    hp->attn_head_gate = true;
    hp->attn_head_gate_softplus = true;
  }
  hp->expert_weights_norm_min = 6.103515625e-5f;
  return Status::Ok();
}

Status read_step35(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  const int n_blocks = hp->n_layer + hp->n_nextn_layers;
  STRATA_RETURN_IF_ERROR(read_layer_kinds(gguf, n_blocks, hp));
  STRATA_RETURN_IF_ERROR(read_rope(gguf, n_blocks, hp));
  STRATA_RETURN_IF_ERROR(read_limits(gguf, a + ".swiglu_limits", a + ".swiglu_clamp_exp", n_blocks, *hp,
                                     &hp->ffn_limit_exp));
  STRATA_RETURN_IF_ERROR(read_limits(gguf, a + ".swiglu_limits_shared", a + ".swiglu_clamp_shexp", n_blocks, *hp,
                                     &hp->ffn_limit_dense));
  for (int l = 0; l < hp->n_layer && !hp->attn_head_gate; ++l) {
    hp->attn_head_gate = has_tensor(gguf, "blk." + std::to_string(l) + ".attn_gate.weight");
  }
  return Status::Ok();
}

}  // namespace strata
