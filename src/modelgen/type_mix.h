// The per-tensor types of llama.cpp's quantisation mixes: a file type such as Q3_K_M says
// which type most matrices get, and the mix raises some tensors (output.weight, some attn_v /
// ffn_down / attn_output) to more bits, as llama.cpp's quantizer does; the facts follow
// llama.cpp's llama-quant.cpp (Feb 2025). Shared by `strata mkmodel` and `strata quantize` so
// a generated file and a quantized one of the same file type have the same types.
//
// Mixes known here: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K_S, Q3_K_M,
// Q3_K_L, Q4_K_S, Q4_K_M, Q5_K_S, Q5_K_M, Q6_K, IQ4_NL, IQ4_XS (as without an importance
// matrix), MXFP4_MOE (llama.cpp's for gpt-oss: the expert tensors, and deepseek2's 3-D attn_k_b /
// attn_v_b, MXFP4, every other matrix Q8_0), TQ1_0 and TQ2_0 (BitNet b1.58's ternary types: every
// matrix ternary but the output Q6_K and the token embeddings Q4_K when the output is separate;
// rows that are not whole 256s Q4_0), and for generated models only the lattice i-quant
// mixes IQ3_S, IQ3_XXS, IQ2_M, IQ2_S, IQ2_XS, IQ2_XXS, IQ1_M, IQ1_S (as llama.cpp makes them with
// an importance matrix, which real models need at these bits; llama.cpp's IQ2_S mix is mostly
// IQ2_XS tensors, its IQ2_M mostly IQ2_S). Pure functions; no state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/dtype.h"

namespace strata {

// What the mix rules read of the model (llama.cpp reads the same from the hparams).
struct MixModel {
  int n_layer = 0;
  int n_expert = 0;         // 0 or 1: dense
  int n_gqa = 1;            // head_count / head_count_kv of layer 0 (0 when it has no K/V heads)
  bool has_output = true;   // false: token_embd.weight doubles as the output matrix
  // > 0: a hybrid model (Qwen3.5) whose every full_attn_interval-th layer attends. llama.cpp's
  // attn_v rules read an attn_v's index among the attn_v tensors (its counter) against n_layer
  // (attn_v and the delta-net layers' attn_qkv counted), so the attending layer l is number
  // l / full_attn_interval there.
  int full_attn_interval = 0;
  // Not empty: the layers holding an attn_v, where other layers hold neither attn_v nor attn_qkv
  // (Granite 4.0-H's Mamba-2 layers). llama.cpp counts attn_v tensors only (n_attention_wv), so an
  // attn_v's index is its layer's place in this list, read against the list's size, not n_layer.
  std::vector<int> attn_v_layers = {};
  // Not empty: the layers holding an ffn_down where some hold none (Nemotron-H's feed-forward
  // layers). In a dense model llama.cpp numbers an ffn_down by the ffn_down tensors before it
  // (i_ffn_down), read against n_layer (n_ffn_down), so its index is its layer's place in this list;
  // with experts (n_expert > 1) it reads the layer in the name, as without this list.
  std::vector<int> ffn_down_layers = {};
};

// The llama.cpp file type whose mix a generated model of `type` follows (`strata mkmodel --type`):
// the K-quants and IQ4 types take their usual mix (Q4_K -> Q4_K_M, Q3_K -> Q3_K_M, Q2_K -> Q2_K,
// IQ4_XS -> IQ4_XS), the lattice i-quants and the ternary types the mix of their name (IQ2_S:
// IQ2_M's); 0 for the other types, whose matrices all take the requested type.
uint32_t generated_type_mix(DType type);

// The file type (general.file_type id) of a mix name, case-insensitive ("q4_k_m", "Q8_0");
// nullopt for names that are not a mix known here.
std::optional<uint32_t> mix_file_type(std::string_view name);
// The file type of a lattice i-quant mix name ("iq2_xxs", "IQ3_S"), case-insensitive; these
// are not in mix_file_type() (strata quantize does not make them).
std::optional<uint32_t> lattice_mix_file_type(std::string_view name);
// The type most matrices of a mix get (Q3_K for Q3_K_M); nullopt for an unknown id.
std::optional<DType> mix_base_type(uint32_t file_type);
// "f32 f16 bf16 q8_0 ... iq4_xs": the names mix_file_type() accepts, for help texts.
std::string mix_names();

// The type file_type's mix gives the matrix `name` (llama.cpp's tensor names: "output.weight",
// "blk.7.ffn_down.weight", "blk.3.ffn_down_exps.weight"...) whose rows are n_in wide, before
// any fallback. Only for tensors that are quantized at all (see is_quantizable_tensor).
DType mix_tensor_type(uint32_t file_type, const MixModel& model, std::string_view name, uint64_t n_in);

// When rows of n_in elements are not whole blocks of type: llama.cpp's fallback (Q2_K / Q3_K
// / IQ4_XS -> IQ4_NL, Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0, TQ1_0 / TQ2_0 -> Q4_0, then F16
// when that does not fit either). Returns type itself when it fits.
DType width_fallback(DType type, uint64_t n_in);

// llama.cpp quantizes a tensor when its name ends in "weight", it has two or more dims, and
// it is not a norm, a MoE router (ffn_gate_inp), a position / token-type embedding or a
// delta-net / Mamba convolution (ssm_conv1d) or LFM2's (shortconv.conv), a few taps per channel,
// nor one of Gemma 3n's AltUp or laurel tensors ("altup", "laurel": 4 x 4 maps to 2048 x 2048
// projections, all kept) or Gemma 3n's and Gemma 4 E2B's per_layer_model_proj.
bool is_quantizable_tensor(std::string_view name, size_t n_dims);

}  // namespace strata
