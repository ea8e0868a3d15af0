#include "modelgen/type_mix.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <utility>

#include "gguf/file_type.h"

namespace strata {

namespace {

// general.file_type ids (llama.cpp's LLAMA_FTYPE numbering).
enum FileTypeId : uint32_t {
  kF32 = 0, kF16 = 1, kQ4_0 = 2, kQ4_1 = 3, kQ8_0 = 7, kQ5_0 = 8, kQ5_1 = 9, kQ2_K = 10,
  kQ3_K_S = 11, kQ3_K_M = 12, kQ3_K_L = 13, kQ4_K_S = 14, kQ4_K_M = 15, kQ5_K_S = 16,
  kQ5_K_M = 17, kQ6_K = 18, kIQ2_XXS = 19, kIQ2_XS = 20, kIQ3_XXS = 23, kIQ1_S = 24, kIQ4_NL = 25,
  kIQ3_S = 26, kIQ2_S = 28, kIQ2_M = 29, kIQ4_XS = 30, kIQ1_M = 31, kBF16 = 32, kTQ1_0 = 36, kTQ2_0 = 37,
  kMXFP4_MOE = 38,
};

constexpr uint32_t kKnownMixes[] = {kF32,    kF16,    kBF16,   kQ8_0,   kQ6_K, kQ5_K_M, kQ5_K_S,
                                    kQ4_K_M, kQ4_K_S, kQ5_0,   kQ5_1,   kQ4_0, kQ4_1,   kQ3_K_L,
                                    kQ3_K_M, kQ3_K_S, kQ2_K,   kIQ4_XS, kIQ4_NL, kMXFP4_MOE, kTQ1_0,
                                    kTQ2_0};

// The lattice i-quant mixes: for generated models only (mkmodel), as llama.cpp makes them
// with an importance matrix; strata quantize does not offer them.
constexpr uint32_t kLatticeMixes[] = {kIQ3_S, kIQ3_XXS, kIQ2_M, kIQ2_S, kIQ2_XS, kIQ2_XXS, kIQ1_M, kIQ1_S};

bool known(uint32_t ft) {
  for (uint32_t k : kKnownMixes) {
    if (k == ft) return true;
  }
  for (uint32_t k : kLatticeMixes) {
    if (k == ft) return true;
  }
  return false;
}

// The 1- and 2-bit i-quant mixes, which llama.cpp treats as one family.
bool is_low_iq(uint32_t ft) {
  return ft == kIQ2_XXS || ft == kIQ2_XS || ft == kIQ2_S || ft == kIQ2_M || ft == kIQ1_S || ft == kIQ1_M;
}

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// The layer of "blk.N....", or -1.
int layer_of(std::string_view name) {
  if (name.substr(0, 4) != "blk.") return -1;
  int layer = -1;
  auto [end, ec] = std::from_chars(name.data() + 4, name.data() + name.size(), layer);
  return ec == std::errc() && end < name.data() + name.size() && *end == '.' ? layer : -1;
}

// The first and last eighth of the layers and every third one between.
bool use_more_bits(int layer, int n_layer) {
  return layer < n_layer / 8 || layer >= 7 * n_layer / 8 || (layer - n_layer / 8) % 3 == 2;
}

DType output_type(uint32_t ft, DType t, uint64_t n_in) {
  if (n_in % dtype_info(t).block_size != 0) return DType::kQ8_0;
  if (is_low_iq(ft) || ft == kIQ3_XXS) return DType::kQ5_K;
  return t == DType::kQ8_0 ? t : DType::kQ6_K;
}

DType token_embd_type(uint32_t ft, DType t) {
  switch (ft) {
    case kIQ2_XXS: case kIQ2_XS: case kIQ1_S: case kIQ1_M: return DType::kQ2_K;
    case kIQ2_S: case kIQ2_M: case kIQ3_XXS: return DType::kIQ3_S;
    case kTQ1_0: case kTQ2_0: return DType::kQ4_K;
    default: return t;
  }
}

// The index llama.cpp's ffn_down rules read for layer's ffn_down (MixModel::ffn_down_layers): its
// place among the layers holding one in a dense model that lists them, else the layer.
int ffn_down_index(const MixModel& m, int layer) {
  if (m.ffn_down_layers.empty() || m.n_expert > 1) return layer;
  const auto it = std::find(m.ffn_down_layers.begin(), m.ffn_down_layers.end(), layer);
  return static_cast<int>(it - m.ffn_down_layers.begin());
}

// IQ2_* / IQ1_* (llama.cpp's first branch for them): attn_v, the first eighth's ffn_down and
// attn_output get more bits; everything else keeps the base type.
DType low_iq_type(uint32_t ft, DType t, const MixModel& m, std::string_view name, int layer) {
  const bool iq2_s_like = ft == kIQ2_S || ft == kIQ2_M;
  if (contains(name, "attn_v.weight")) {
    if (m.n_gqa >= 4 || m.n_expert >= 4) return DType::kQ4_K;
    return iq2_s_like ? DType::kIQ3_S : DType::kQ2_K;
  }
  if (m.n_expert == 8 && contains(name, "attn_k.weight")) return DType::kQ4_K;
  if (contains(name, "ffn_down")) {
    if (ffn_down_index(m, layer) < m.n_layer / 8) return iq2_s_like ? DType::kIQ3_S : DType::kQ2_K;
    return t;
  }
  if (contains(name, "attn_output.weight")) {
    if (m.n_expert == 8) return DType::kQ5_K;
    if (ft == kIQ1_S || ft == kIQ1_M) return DType::kIQ2_XXS;
    if (iq2_s_like) return DType::kIQ3_S;
  }
  return t;
}

// layer: the attn_v's index among the attn_v tensors, n_attention_wv their count (attn_v_index()).
DType attn_v_type(uint32_t ft, DType t, const MixModel& m, int layer, int n_attention_wv) {
  if (m.n_expert == 8) return DType::kQ8_0;  // Mixtral-style: ~128 MB for much better attention
  const bool gqa4 = m.n_gqa >= 4;
  switch (ft) {
    case kIQ3_XXS: return gqa4 ? DType::kQ4_K : t;
    case kIQ3_S: return gqa4 ? DType::kQ4_K : t;
    case kQ2_K: return gqa4 ? DType::kQ4_K : DType::kQ3_K;
    case kQ3_K_M: return layer < 2 ? DType::kQ5_K : DType::kQ4_K;
    case kQ3_K_L: return DType::kQ5_K;
    case kIQ4_NL: case kIQ4_XS: return gqa4 ? DType::kQ5_K : t;
    case kQ4_K_M: case kQ5_K_M: return use_more_bits(layer, n_attention_wv) ? DType::kQ6_K : t;
    case kQ4_K_S: return layer < 4 ? DType::kQ5_K : t;
    default: return t;
  }
}

// The index llama.cpp's attn_v rules read for layer's attn_v (i_attention_wv) and the count they
// read it against (n_attention_wv): its place among MixModel::attn_v_layers, or in a Qwen3.5 model
// layer / full_attn_interval against n_layer (its delta-net layers' attn_qkv counted), else the layer.
std::pair<int, int> attn_v_index(const MixModel& m, int layer) {
  if (!m.attn_v_layers.empty()) {
    const auto it = std::find(m.attn_v_layers.begin(), m.attn_v_layers.end(), layer);
    return {static_cast<int>(it - m.attn_v_layers.begin()), static_cast<int>(m.attn_v_layers.size())};
  }
  return {m.full_attn_interval > 0 ? layer / m.full_attn_interval : layer, m.n_layer};
}

// layer: the ffn_down's index (ffn_down_index()), read against n_layer.
DType ffn_down_type(uint32_t ft, DType t, const MixModel& m, int layer) {
  const int n = m.n_layer;
  switch (ft) {
    case kQ2_K: return DType::kQ3_K;
    case kQ3_K_M: return layer < n / 16 ? DType::kQ5_K : DType::kQ4_K;
    case kQ3_K_L: return DType::kQ5_K;
    case kQ4_K_M: case kQ5_K_M: return use_more_bits(layer, n) ? DType::kQ6_K : t;
    case kIQ4_NL: case kIQ4_XS: return layer < n / 8 ? DType::kQ5_K : t;
    case kQ4_K_S: return layer < n / 8 ? DType::kQ5_K : t;
    default: return t;
  }
}

DType attn_output_type(uint32_t ft, DType t, const MixModel& m) {
  if (m.n_expert == 8) {
    switch (ft) {
      case kQ2_K: case kQ3_K_S: case kQ3_K_M: case kIQ4_NL: case kQ4_K_S: case kQ4_K_M: case kIQ4_XS:
      case kIQ3_XXS: case kIQ3_S:
        return DType::kQ5_K;
      default: return t;
    }
  }
  switch (ft) {
    case kQ2_K: return DType::kQ3_K;
    case kIQ3_XXS: return DType::kIQ3_S;
    case kQ3_K_M: return DType::kQ4_K;
    case kQ3_K_L: return DType::kQ5_K;
    default: return t;
  }
}

DType attn_qkv_type(uint32_t ft, DType t) {
  switch (ft) {
    case kQ3_K_M: case kQ3_K_L: return DType::kQ4_K;
    case kQ4_K_M: return DType::kQ5_K;
    case kQ5_K_M: return DType::kQ6_K;
    default: return t;
  }
}

bool is_float(DType t) { return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16; }

}  // namespace

uint32_t generated_type_mix(DType type) {
  switch (type) {
    case DType::kQ2_K: return kQ2_K;
    case DType::kQ3_K: return kQ3_K_M;
    case DType::kQ4_K: return kQ4_K_M;
    case DType::kQ5_K: return kQ5_K_M;
    case DType::kQ6_K: return kQ6_K;
    case DType::kIQ4_NL: return kIQ4_NL;
    case DType::kIQ4_XS: return kIQ4_XS;
    case DType::kIQ2_XXS: return kIQ2_XXS;
    case DType::kIQ2_XS: return kIQ2_XS;
    case DType::kIQ3_XXS: return kIQ3_XXS;
    case DType::kIQ1_S: return kIQ1_S;
    case DType::kIQ3_S: return kIQ3_S;
    case DType::kIQ2_S: return kIQ2_M;  // llama.cpp's IQ2_M: its IQ2_S mix is mostly IQ2_XS
    case DType::kIQ1_M: return kIQ1_M;
    case DType::kTQ1_0: return kTQ1_0;  // llama.cpp's TQ1_0 / TQ2_0: output Q6_K, token_embd Q4_K
    case DType::kTQ2_0: return kTQ2_0;
    default: return 0;
  }
}

std::optional<uint32_t> mix_file_type(std::string_view name) {
  for (uint32_t ft : kKnownMixes) {
    if (iequal(name, file_type_name(ft))) return ft;
  }
  return std::nullopt;
}

std::optional<uint32_t> lattice_mix_file_type(std::string_view name) {
  for (uint32_t ft : kLatticeMixes) {
    if (iequal(name, file_type_name(ft))) return ft;
  }
  return std::nullopt;
}

std::optional<DType> mix_base_type(uint32_t file_type) {
  if (!known(file_type)) return std::nullopt;
  if (file_type == kIQ2_S) return DType::kIQ2_XS;  // llama.cpp's IQ2_S mix is mostly IQ2_XS; IQ2_M is IQ2_S
  return file_type_main_dtype(file_type);
}

std::string mix_names() {
  std::string out;
  for (uint32_t ft : kKnownMixes) {
    if (!out.empty()) out += ' ';
    for (char c : file_type_name(ft)) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

DType mix_tensor_type(uint32_t ft, const MixModel& m, std::string_view name, uint64_t n_in) {
  const DType t = mix_base_type(ft).value_or(DType::kF32);
  if (is_float(t)) return t;  // llama.cpp applies no mix to the float file types
  // gpt-oss's files: the experts MXFP4, every other matrix Q8_0. llama.cpp picks the 3-D tensors,
  // which are deepseek2's split attn_k_b / attn_v_b (one matrix per head) as well.
  if (ft == kMXFP4_MOE) {
    const bool three_d = contains(name, "_exps.") || contains(name, ".attn_k_b.") || contains(name, ".attn_v_b.");
    return three_d ? DType::kMXFP4 : DType::kQ8_0;
  }
  const int layer = layer_of(name);
  if (name == "output.weight" || (!m.has_output && name == "token_embd.weight")) return output_type(ft, t, n_in);
  if (name == "token_embd.weight") return token_embd_type(ft, t);
  if (is_low_iq(ft)) return low_iq_type(ft, t, m, name, layer);
  if (contains(name, "attn_v.weight")) {
    const auto [index, count] = attn_v_index(m, layer);
    return attn_v_type(ft, t, m, index, count);
  }
  if (contains(name, "attn_k.weight")) return m.n_expert == 8 ? DType::kQ8_0 : ft == kIQ3_XXS ? DType::kIQ2_S : t;
  if (contains(name, "attn_q.weight")) return ft == kIQ3_XXS ? DType::kIQ2_S : t;
  if (contains(name, "ffn_down")) return ffn_down_type(ft, t, m, ffn_down_index(m, layer));
  if (contains(name, "attn_output.weight")) return attn_output_type(ft, t, m);
  if (contains(name, "attn_qkv.weight")) return attn_qkv_type(ft, t);
  return t;
}

DType width_fallback(DType type, uint64_t n_in) {
  if (n_in % dtype_info(type).block_size == 0) return type;
  DType next = DType::kF16;
  switch (type) {
    case DType::kQ2_K: case DType::kQ3_K: case DType::kIQ4_XS: case DType::kIQ3_S: case DType::kIQ3_XXS:
    case DType::kIQ2_XXS: case DType::kIQ2_XS: case DType::kIQ2_S: case DType::kIQ1_S: case DType::kIQ1_M:
      next = DType::kIQ4_NL;
      break;
    case DType::kQ4_K: next = DType::kQ5_0; break;
    case DType::kQ5_K: next = DType::kQ5_1; break;
    case DType::kQ6_K: next = DType::kQ8_0; break;
    case DType::kTQ1_0: case DType::kTQ2_0: next = DType::kQ4_0; break;
    default: break;
  }
  return n_in % dtype_info(next).block_size == 0 ? next : DType::kF16;
}

bool is_quantizable_tensor(std::string_view name, size_t n_dims) {
  const std::string_view suffix = "weight";
  if (name.size() < suffix.size() || name.substr(name.size() - suffix.size()) != suffix) return false;
  if (n_dims < 2) return false;
  if (contains(name, "_norm.weight") || contains(name, "ffn_gate_inp.weight") || contains(name, "ssm_conv1d") ||
      contains(name, "shortconv.conv.weight") || contains(name, "altup") || contains(name, "laurel") ||
      contains(name, "per_layer_model_proj")) {
    return false;
  }
  return name != "position_embd.weight" && name != "token_types.weight";
}

}  // namespace strata
