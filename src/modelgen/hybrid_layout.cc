#include "modelgen/hybrid_layout.h"

#include <algorithm>
#include <string>

#include "modelgen/model_presets.h"

namespace strata {

namespace {

// The Mamba-2 layers of --arch granitehybrid, nemotron_h, nemotron_h_moe and falcon-h1: a preset of the
// family (Granite's, Nemotron's, Falcon-H1's) keeps its own; another (a Qwen3.5 one too, whose delta-net interval
// goes) takes Granite 4.0-H Tiny's proportions, or Nemotron's with 8 groups where the heads split
// into 8 and Nemotron 3 Nano's 7-layer unit over at least 7 layers (model_preset()). Every layer
// count keeps an attending layer (granite_layer_attends(), nemotron_layer_pattern()).
void apply_mamba2(std::string_view name, ModelSpec* s) {
  s->full_attn_interval = 0;
  if (s->preset.starts_with(s->nemotron_h ? "nemotron" : s->falcon_h1 ? "falcon-h1" : "granite")) return;
  constexpr int kHeadDim = 64, kNemotronGroups = 8;
  const int n_heads = std::max(1, 2 * s->n_embd / kHeadDim);
  const int n_groups = s->nemotron_h && n_heads % kNemotronGroups == 0 ? kNemotronGroups : 1;
  *s = preset_parts::mamba2(*s, n_heads, kHeadDim, n_groups, std::clamp(s->n_embd / 4, 1, 128));
  if (!s->nemotron_h) return;
  s->layer_pattern = name == "nemotron_h_moe" ? "MEMEM*E" : "M-M-M*-";
  s->n_layer = std::max(s->n_layer, static_cast<int>(s->layer_pattern.size()));
}

// LFM2's short-convolution layers for --arch lfm2 / lfm2moe: an LFM2 preset keeps its layer_types and
// taps; another (a hybrid one too, whose recurrent shapes go) attends in every third layer over
// 3-tap convolutions, LFM2's own first unit (model_preset()).
void apply_short_conv(ModelSpec* s) {
  s->full_attn_interval = 0;
  s->ssm_n_k_heads = s->ssm_head_k_dim = s->ssm_n_v_heads = s->ssm_head_v_dim = 0;
  if (s->preset.starts_with("lfm2")) return;
  constexpr int kLfm2Taps = 3;
  s->ssm_conv_kernel = kLfm2Taps;
  s->layer_pattern = "CC*";
}

// Ling 3.0's and Kimi Linear's Kimi Delta Attention for --arch bailingmoe3 / kimi-linear, on the latent
// attention apply_deepseek2() gave s. Kimi Linear's preset keeps its layer list and KDA shapes; another
// preset (a hybrid one too, whose recurrent shapes go) takes mkmodel's own pattern, latent attention in
// every 4th layer over at least 4 layers, and KDA heads of 128 over 4 taps (Kimi Linear's). Both route by
// sigmoid gates with a selection bias, renormalised. kimi-linear's decay and gate inputs go through a rank
// of its KDA head, and as Kimi's latent attention has no rope it has no YaRN; llama.cpp's converter
// writes its attn_kv_b split. bailingmoe3 groups the experts as Ling 2.0 does (8 groups, 4 used) where
// they split into 8 groups of 2 or more that hold the experts used, else writes one group.
void apply_kda(std::string_view name, ModelSpec* s) {
  constexpr int kHeadDim = 128, kTaps = 4, kGroups = 8, kGroupsUsed = 4;
  const bool kimi = name == "kimi-linear";
  s->full_attn_interval = 0;
  if (!s->preset.starts_with("kimi-linear")) {
    *s = preset_parts::kda(*s, kHeadDim, kTaps, "KKK*");
    s->n_layer = std::max(s->n_layer, static_cast<int>(s->layer_pattern.size()));
  }
  s->kda_rank = kimi ? s->ssm_head_v_dim : 0;
  s->sigmoid_routing = s->expert_weights_norm = true;
  if (kimi) {
    s->rope_yarn_factor = 1.0f;
    s->rope_yarn_log_mul = 0.0f;
    s->split_kv_b = true;
    s->n_expert_groups = s->n_expert_groups_used = 0;
    return;
  }
  const int per_group = s->n_expert / kGroups;
  const bool grouped = s->n_expert % kGroups == 0 && per_group >= 2 && kGroupsUsed * per_group >= s->n_expert_used;
  s->n_expert_groups = grouped ? kGroups : 1;
  s->n_expert_groups_used = grouped ? kGroupsUsed : 1;
}

}  // namespace

// Qwen3.5's hybrid layers for --arch qwen35 / qwen35moe / qwen3next: a hybrid preset keeps its
// own; another takes Qwen3.5's proportions (model_preset()) and at least one interval of layers,
// so that one attends (tiny's and moe-tiny's 2 become 4). granitehybrid's, nemotron_h's,
// nemotron_h_moe's and falcon-h1's are apply_mamba2()'s, lfm2's and lfm2moe's apply_short_conv()'s,
// bailingmoe3's and kimi-linear's apply_kda()'s; other archs have none.
void apply_hybrid(std::string_view name, ModelSpec* s) {
  s->mamba2 = name == "granitehybrid";
  s->nemotron_h = name == "nemotron_h" || name == "nemotron_h_moe";
  s->falcon_h1 = name == "falcon-h1";
  s->lfm2 = name == "lfm2" || name == "lfm2moe";
  s->kda = name == "bailingmoe3" || name == "kimi-linear";
  if (s->kda) {
    apply_kda(name, s);
    return;
  }
  s->kda_rank = s->n_expert_groups = s->n_expert_groups_used = 0;
  // A pattern is its family's: another family's preset takes this arch's unit.
  const bool own_pattern = s->preset.starts_with(s->lfm2 ? "lfm2" : "nemotron");
  if ((!s->nemotron_h && !s->lfm2) || !own_pattern) s->layer_pattern.clear();
  if (s->lfm2) {
    apply_short_conv(s);
    return;
  }
  if (s->mamba2 || s->nemotron_h || s->falcon_h1) {
    apply_mamba2(name, s);
    return;
  }
  if (name != "qwen35" && name != "qwen35moe" && name != "qwen3next") {
    s->full_attn_interval = s->ssm_conv_kernel = 0;
    s->ssm_n_k_heads = s->ssm_head_k_dim = s->ssm_n_v_heads = s->ssm_head_v_dim = 0;
    return;
  }
  if (s->full_attn_interval > 0) return;
  *s = preset_parts::delta_net(*s, s->n_head, s->head_dim / 2, 2 * s->n_head, s->head_dim / 2);
  s->n_layer = std::max(s->n_layer, s->full_attn_interval);
}

}  // namespace strata
