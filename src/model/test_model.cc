#include "model/test_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "model/test_model_builder.h"

namespace strata::testing {
namespace {

std::string file_arch(const TestModelSpec& s) {
  if (s.arch == "gemma4-moe") return "gemma4";
  if (s.arch == "granitehybrid-dense") return "granitehybrid";
  return s.arch == "mixtral" ? "llama" : s.arch;
}

// GLM-4.5's expert layout (leading dense layers, sigmoid routing with a selection bias, an
// ungated shared expert), which Ling 2.0 (bailingmoe2), dots.llm1 (dots1) and MiniMax-M3 share;
// the first two have a NextN block last and rotate half of each head, as MiniMax-M3 does.
bool glm_like(const std::string& arch) {
  return arch == "glm4moe" || arch == "bailingmoe2" || arch == "dots1" || arch == "minimax-m3";
}
bool has_nextn(const std::string& arch) {
  return arch == "glm4moe" || arch == "bailingmoe2" || arch == "step35" || arch == "glm-dsa" || arch == "bailingmoe3";
}
bool is_deepseek(const std::string& arch) {
  return arch == "deepseek2" || arch == "mistral4" || arch == "glm-dsa" || arch == "bailingmoe3" || arch == "kimi-linear";
}

// GLM-5's NextN block count and its sparse-attention indexer, which the forward pass does not
// run: the indexer's keys, and per block (the NextN one's too) its tensors in llama.cpp's names,
// after every other tensor and taking no seed, so the other weights are those of the same
// deepseek2 spec.
void set_glm_dsa_metadata(const TestModelSpec& s, GgufWriter& w) {
  w.set(s.arch + ".nextn_predict_layers", GgufValue::U32(1));
  w.set(s.arch + ".attention.indexer.head_count", GgufValue::U32(2));
  w.set(s.arch + ".attention.indexer.key_length", GgufValue::U32(32));
  w.set(s.arch + ".attention.indexer.top_k", GgufValue::U32(16));
}

void add_indexer_tensors(ModelBuilder& b, const TestModelSpec& s, int n_blocks) {
  // F32 values of a fixed pattern, n_in wide rows.
  auto add = [&](const std::string& name, uint64_t n_in, uint64_t n_out) {
    std::vector<uint64_t> dims = {n_in};
    if (n_out > 0) dims.push_back(n_out);
    const uint64_t n = n_in * std::max<uint64_t>(n_out, 1);
    b.writer().add_tensor(name, DType::kF32, dims, [n](uint8_t* dst) {
      for (uint64_t i = 0; i < n; ++i) {
        const float v = 0.01f * static_cast<float>(i % 17) - 0.08f;
        std::memcpy(dst + i * sizeof(float), &v, sizeof(float));
      }
    });
  };
  const auto embd = static_cast<uint64_t>(s.n_embd);
  for (int l = 0; l < n_blocks; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".indexer.";
    add(p + "k_norm.weight", 32, 0);
    add(p + "k_norm.bias", 32, 0);
    add(p + "proj.weight", embd, 2);
    add(p + "attn_k.weight", embd, 32);
    add(p + "attn_q_b.weight", static_cast<uint64_t>(s.mla_q_rank), 2 * 32);
  }
}

// Qwen's shared expert: sized by expert_shared_feed_forward_length, gated by ffn_gate_inp_shexp.
bool has_gated_shared_expert(const std::string& arch) {
  return arch == "qwen2moe" || arch == "qwen35moe" || arch == "qwen3next";
}

// GLM-4.5's keys as llama.cpp's converter writes them (the shared expert is a count of experts).
void set_glm4moe_metadata(const TestModelSpec& s, GgufWriter& w) {
  const std::string a = s.arch;
  w.set(a + ".expert_shared_count", GgufValue::U32(1));
  w.set(a + ".leading_dense_block_count", GgufValue::U32(static_cast<uint32_t>(s.n_dense_lead)));
  w.set(a + ".expert_weights_scale", GgufValue::F32(s.expert_weights_scale));
  w.set(a + ".expert_weights_norm", GgufValue::Bool(true));
  w.set(a + ".expert_gating_func", GgufValue::U32(2));
  if (has_nextn(a)) w.set(a + ".nextn_predict_layers", GgufValue::U32(1));
  if (s.arch == "bailingmoe2") {  // Ling 2.0's group-limited routing: 2 of 4 groups
    w.set(a + ".expert_shared_feed_forward_length", GgufValue::U32(static_cast<uint32_t>(s.n_ff_exp)));
    w.set(a + ".expert_group_count", GgufValue::U32(4));
    w.set(a + ".expert_group_used_count", GgufValue::U32(2));
  }
}

// Llama 4's keys: ollama's and later converters write the chunk size and use_qk_norm; the
// temperature keys are llama.cpp's names (its constants otherwise).
void set_llama4_metadata(const TestModelSpec& s, GgufWriter& w) {
  const std::string a = s.arch;
  w.set(a + ".interleave_moe_layer_step", GgufValue::U32(static_cast<uint32_t>(s.moe_layer_step)));
  w.set(a + ".attention.chunk_size", GgufValue::U32(static_cast<uint32_t>(s.attn_chunk)));
  w.set(a + ".attention.temperature_length", GgufValue::U32(static_cast<uint32_t>(s.attn_temp_length)));
  w.set(a + ".attention.temperature_scale", GgufValue::F32(s.attn_temp_scale));
  w.set(a + ".use_qk_norm", GgufValue::Bool(s.qk_l2_norm));
}

// Cohere's MoE keys as llama.cpp's converter writes North's: a flag per layer (full when l % 4 is
// 0), the sigmoid gate, the weights as they are, the logits times 0.25.
void set_cohere2_moe_metadata(const TestModelSpec& s, GgufWriter& w) {
  const std::string a = s.arch;
  std::vector<GgufValue> pattern;
  for (int l = 0; l < layer_count(s); ++l) pattern.push_back(GgufValue::Bool(l % 4 != 0));
  w.set(a + ".attention.sliding_window", GgufValue::U32(static_cast<uint32_t>(s.sliding_window)));
  w.set(a + ".attention.sliding_window_pattern", GgufValue::Array(GgufType::kBool, std::move(pattern)));
  w.set(a + ".logit_scale", GgufValue::F32(0.25f));
  w.set(a + ".leading_dense_block_count", GgufValue::U32(static_cast<uint32_t>(s.n_dense_lead)));
  w.set(a + ".expert_weights_norm", GgufValue::Bool(false));
  w.set(a + ".expert_gating_func", GgufValue::U32(2));
}

void set_metadata(const TestModelSpec& s, GgufWriter& w) {
  const std::string a = file_arch(s);
  w.set("general.architecture", GgufValue::String(a));
  w.set("general.name", GgufValue::String(test_model_name(s)));
  w.set(a + ".context_length", GgufValue::U32(static_cast<uint32_t>(s.n_ctx)));
  w.set(a + ".embedding_length", GgufValue::U32(static_cast<uint32_t>(s.n_embd)));
  w.set(a + ".feed_forward_length", GgufValue::U32(static_cast<uint32_t>(s.n_ff)));
  w.set(a + ".block_count", GgufValue::U32(static_cast<uint32_t>(layer_count(s) + (has_nextn(s.arch) ? 1 : 0))));
  w.set(a + ".attention.head_count", GgufValue::U32(static_cast<uint32_t>(s.n_head)));
  w.set(a + ".attention.head_count_kv", GgufValue::U32(static_cast<uint32_t>(s.n_head_kv)));
  w.set(a + ".attention.layer_norm_rms_epsilon", GgufValue::F32(1e-6f));
  if (s.head_dim != 0) {
    w.set(a + ".attention.key_length", GgufValue::U32(static_cast<uint32_t>(s.head_dim)));
    w.set(a + ".attention.value_length", GgufValue::U32(static_cast<uint32_t>(s.head_dim)));
  }
  w.set(a + ".rope.freq_base", GgufValue::F32(s.rope_freq_base));
  if (s.rope_linear_factor != 1.0f) {
    w.set(a + ".rope.scaling.type", GgufValue::String("linear"));
    w.set(a + ".rope.scaling.factor", GgufValue::F32(s.rope_linear_factor));
  }
  if (s.n_rot != 0) w.set(a + ".rope.dimension_count", GgufValue::U32(static_cast<uint32_t>(s.n_rot)));
  if (s.rope_orig_ctx != 0) {
    w.set(a + ".rope.scaling.original_context_length", GgufValue::U32(static_cast<uint32_t>(s.rope_orig_ctx)));
  }
  if (s.rope_attn_factor != 1.0f) w.set(a + ".rope.scaling.attn_factor", GgufValue::F32(s.rope_attn_factor));
  if (s.arch == "gemma2") {
    w.set(a + ".attn_logit_softcapping", GgufValue::F32(s.attn_softcap));
    w.set(a + ".final_logit_softcapping", GgufValue::F32(s.final_softcap));
  }
  if (s.arch == "gemma4" || s.arch == "gemma4-moe") set_gemma4_metadata(s, w);
  if (s.arch == "gemma3n") set_gemma3n_metadata(s, w);
  if (s.arch == "step35") set_step35_metadata(s, w);
  if (s.arch == "laguna") set_laguna_metadata(s, w);
  if (s.arch == "mimo2") set_mimo2_metadata(s, w);
  if (s.arch == "deci") set_deci_metadata(s, w);
  if (is_granite_hybrid(s.arch)) set_granite_hybrid_metadata(s, w);
  if (is_nemotron_h(s.arch)) set_nemotron_h_metadata(s, w);
  if (is_lfm2(s.arch)) set_lfm2_metadata(s, w);
  if (s.arch == "falcon-h1") set_falcon_h1_metadata(s, w);
  if (s.arch == "apertus") {  // xIELU's unconstrained values per layer, as Apertus's checkpoints hold them
    std::vector<float> alpha_n, alpha_p, beta, eps;
    for (int l = 0; l < layer_count(s); ++l) {
      alpha_n.push_back(-0.7f + 0.1f * static_cast<float>(l));
      alpha_p.push_back(-0.2f + 0.05f * static_cast<float>(l));
      beta.push_back(0.5f);
      eps.push_back(-1e-6f);
    }
    w.set("xielu.alpha_n", GgufValue::F32Array(alpha_n));
    w.set("xielu.alpha_p", GgufValue::F32Array(alpha_p));
    w.set("xielu.beta", GgufValue::F32Array(beta));
    w.set("xielu.eps", GgufValue::F32Array(eps));
  }
  if (s.arch == "gemma2" || s.arch == "gemma3" || s.arch == "gpt-oss" || s.arch == "phi3" || s.arch == "cohere2") {
    w.set(a + ".attention.sliding_window", GgufValue::U32(static_cast<uint32_t>(s.sliding_window)));
  }
  if (s.arch == "cohere2" || s.arch == "command-r") {  // Command R7B's logit scale; a layer norm's eps
    w.set(a + ".logit_scale", GgufValue::F32(0.25f));
    w.set(a + ".attention.layer_norm_epsilon", GgufValue::F32(1e-5f));
  }
  if (s.rope_yarn_factor != 1.0f) {
    w.set(a + ".rope.scaling.type", GgufValue::String("yarn"));
    w.set(a + ".rope.scaling.factor", GgufValue::F32(s.rope_yarn_factor));
    w.set(a + ".rope.scaling.original_context_length", GgufValue::U32(static_cast<uint32_t>(s.rope_yarn_orig_ctx)));
  }
  if (is_moe_arch(s.arch)) {
    w.set(a + ".expert_count", GgufValue::U32(static_cast<uint32_t>(s.n_expert)));
    w.set(a + ".expert_used_count", GgufValue::U32(static_cast<uint32_t>(s.n_expert_used)));
    if (s.arch == "mixtral" || s.arch == "granitemoe" || s.arch == "granitehybrid" || s.arch == "olmoe") {
      w.set(a + ".feed_forward_length", GgufValue::U32(static_cast<uint32_t>(s.n_ff_exp)));
    } else {
      w.set(a + ".expert_feed_forward_length", GgufValue::U32(static_cast<uint32_t>(s.n_ff_exp)));
    }
    if (has_gated_shared_expert(s.arch) || s.arch == "hunyuan-moe" || s.arch == "granitehybrid" ||
        s.arch == "nemotron_h_moe") {
      w.set(a + ".expert_shared_feed_forward_length", GgufValue::U32(static_cast<uint32_t>(s.n_ff_shexp)));
    }
    if (glm_like(s.arch)) set_glm4moe_metadata(s, w);
    if (s.arch == "llama4") set_llama4_metadata(s, w);
    if (is_deepseek(s.arch)) set_deepseek2_metadata(s, w);
    if (s.arch == "glm-dsa") set_glm_dsa_metadata(s, w);
    if (s.arch == "bailingmoe3") set_bailingmoe3_metadata(s, w);
    if (s.arch == "kimi-linear") set_kimi_linear_metadata(s, w);
    if (s.arch == "cohere2_moe") set_cohere2_moe_metadata(s, w);
    // MiniMax-M2's converter writes the sigmoid gate; the renormalisation is the arch's.
    if (s.arch == "minimax-m2") w.set(a + ".expert_gating_func", GgufValue::U32(static_cast<uint32_t>(s.expert_gating_func)));
    if (s.arch == "ernie4_5-moe") {  // as llama.cpp's converter writes ERNIE 4.5's
      w.set(a + ".leading_dense_block_count", GgufValue::U32(static_cast<uint32_t>(s.n_dense_lead)));
      w.set(a + ".interleave_moe_layer_step", GgufValue::U32(static_cast<uint32_t>(s.moe_layer_step)));
      w.set(a + ".expert_shared_feed_forward_length", GgufValue::U32(static_cast<uint32_t>(s.n_ff_shexp)));
    }
  }
  // GLM and MiniMax-M2 rotate half of each head.
  if (s.arch == "mistral3") {  // as llama.cpp's converter writes Ministral 3's rope and temperature
    w.set(a + ".attention.temperature_scale", GgufValue::F32(s.attn_temp_scale));
    w.set(a + ".rope.scaling.yarn_log_multiplier", GgufValue::F32(s.rope_yarn_log_mul));
    w.set(a + ".rope.scaling.yarn_beta_fast", GgufValue::F32(s.rope_yarn_beta_fast));
    w.set(a + ".rope.scaling.yarn_beta_slow", GgufValue::F32(s.rope_yarn_beta_slow));
  }
  if (is_hybrid_arch(s.arch)) set_hybrid_metadata(s, w);
  if (s.arch == "granite" || s.arch == "granitemoe") {
    // Granite 3.x 8B's multipliers, its attention scale 1 / head size (not 1 / sqrt of it).
    w.set(a + ".embedding_scale", GgufValue::F32(12.0f));
    w.set(a + ".attention.scale", GgufValue::F32(1.0f / static_cast<float>(head_dim(s))));
    w.set(a + ".residual_scale", GgufValue::F32(0.22f));
    w.set(a + ".logit_scale", GgufValue::F32(8.0f));
  }
  if (s.arch == "qwen2vl" || s.arch == "qwen3vl" || s.arch == "qwen3vlmoe") {
    // M-RoPE sections in the real files' proportions over the rotated pairs: Qwen2-VL's
    // [16, 24, 24, 0] and Qwen3-VL's [24, 20, 20, 0] of 64 (a head of 64: [8, 12, 12, 0] and
    // [12, 10, 10, 0], whose interleaving leaves the last pair to the temporal component).
    const int n_pairs = (s.n_rot != 0 ? s.n_rot : head_dim(s)) / 2;
    const int first = n_pairs * (s.arch == "qwen2vl" ? 16 : 24) / 64;
    const int second = (n_pairs - first) / 2;
    w.set(a + ".rope.dimension_sections", GgufValue::I32Array({first, second, n_pairs - first - second, 0}));
  }
  if ((s.arch == "glm4" || s.arch == "glm4moe" || s.arch == "bailingmoe2" || s.arch == "minimax-m2" ||
       s.arch == "minimax-m3") &&
      s.n_rot == 0) {
    w.set(a + ".rope.dimension_count", GgufValue::U32(static_cast<uint32_t>(head_dim(s) / 2)));
  }
  for (const auto& [key, value] : s.metadata_overrides) w.set(key, value);
  for (const std::string& key : s.skip_keys) w.erase(key);
}

// A layer's feed-forward tensors: dense, or router + experts (+ the shared expert).
void add_ffn(ModelBuilder& b, const TestModelSpec& s, const std::string& p, int layer) {
  if (s.arch == "gemma4-moe") {
    add_gemma4_moe_ffn(b, s, p);
    return;
  }
  if (s.arch == "phi3" || s.arch == "glm4") {
    b.matrix(p + "ffn_up.weight", s.n_embd, 2 * s.n_ff);
    b.matrix(p + "ffn_down.weight", s.n_ff, s.n_embd);
    return;
  }
  const bool glm = glm_like(s.arch);
  const bool deepseek = is_deepseek(s.arch);
  // A dense lead, a selection bias, a shared expert of its own width.
  const bool ernie = s.arch == "ernie4_5-moe" || s.arch == "step35" || s.arch == "laguna";
  const bool stepped_dense = (s.arch == "llama4" || ernie) && (layer + 1) % s.moe_layer_step != 0;
  const bool dense_lead = glm || deepseek || ernie || s.arch == "cohere2_moe" || s.arch == "mimo2" || s.arch == "lfm2moe";
  if (!is_moe_arch(s.arch) || (dense_lead && layer < s.n_dense_lead) || stepped_dense) {
    const int n_ff = s.arch == "gemma4" ? gemma4_ffn_width(s, layer) : s.n_ff;
    if (s.arch != "arcee" && s.arch != "apertus") b.matrix(p + "ffn_gate.weight", s.n_embd, n_ff);  // no gate
    b.matrix(p + "ffn_up.weight", s.n_embd, n_ff);
    b.matrix(p + "ffn_down.weight", n_ff, s.n_embd);
    return;
  }
  b.vector_matrix(p + "ffn_gate_inp.weight", s.n_embd, s.n_expert);
  // A selection bias of the size of the sigmoid gate values' spread, so it changes choices.
  const bool sigmoid_deepseek = is_deepseek(s.arch) && s.arch != "mistral4" && s.expert_gating_func == 2;
  if (glm || sigmoid_deepseek || s.arch == "minimax-m2" || ernie || s.arch == "mimo2" || s.arch == "lfm2moe") {
    b.vector(p + "exp_probs_b.bias", s.n_expert, 0.0f, 0.3f);
  }
  if (s.fused_gate_up_exps) {  // each expert's gate rows, then its up rows
    b.matrix(p + "ffn_gate_up_exps.weight", s.n_embd, 2 * s.n_ff_exp, s.n_expert);
  } else {
    b.matrix(p + "ffn_gate_exps.weight", s.n_embd, s.n_ff_exp, s.n_expert);
    b.matrix(p + "ffn_up_exps.weight", s.n_embd, s.n_ff_exp, s.n_expert);
  }
  b.matrix(p + "ffn_down_exps.weight", s.n_ff_exp, s.n_embd, s.n_expert);
  if (s.arch == "gpt-oss") {
    b.vector(p + "ffn_gate_inp.bias", s.n_expert, 0.0f, 1.0f);
    b.vectors(p + "ffn_gate_exps.bias", s.n_ff_exp, s.n_expert, 0.5f);
    b.vectors(p + "ffn_up_exps.bias", s.n_ff_exp, s.n_expert, 0.5f);
    b.vectors(p + "ffn_down_exps.bias", s.n_embd, s.n_expert, 0.5f);
  }
  if (has_gated_shared_expert(s.arch)) {
    b.vector(p + "ffn_gate_inp_shexp.weight", s.n_embd, 0.0f, std::sqrt(3.0f / static_cast<float>(s.n_embd)));
  }
  const bool sized_shexp = has_gated_shared_expert(s.arch) || ernie || s.arch == "hunyuan-moe" ||
                           s.arch == "granitehybrid";
  if (sized_shexp || glm || deepseek || s.arch == "llama4") {
    const int width = sized_shexp ? s.n_ff_shexp : s.n_ff_exp;
    b.matrix(p + "ffn_gate_shexp.weight", s.n_embd, width);
    b.matrix(p + "ffn_up_shexp.weight", s.n_embd, width);
    b.matrix(p + "ffn_down_shexp.weight", width, s.n_embd);
  }
}

}  // namespace

void set_longrope_factors(TestModelSpec& spec, int n_pairs, int orig_ctx) {
  spec.rope_orig_ctx = orig_ctx;
  spec.rope_factors_short.clear();
  spec.rope_factors_long.clear();
  for (int i = 0; i < n_pairs; ++i) {
    spec.rope_factors_short.push_back(1.0f + 0.25f * static_cast<float>(i % 4));
    spec.rope_factors_long.push_back(1.0f + 3.0f * static_cast<float>(i));
  }
}

Status add_vocabulary_from(const std::string& vocab_path, TestModelSpec& spec) {
  STRATA_ASSIGN_OR_RETURN(GgufFile vocab, GgufFile::Open(vocab_path));
  for (const auto& [key, value] : vocab.metadata()) {
    if (key.starts_with("tokenizer.")) spec.metadata_overrides.emplace_back(key, value);
  }
  return Status::Ok();
}

std::string test_model_name(const TestModelSpec& spec) {
  return spec.arch + "-" + (spec.mixed ? std::string("mixed") : std::string(dtype_name(spec.type)));
}

bool is_moe_arch(const std::string& arch) {
  return arch == "mixtral" || arch == "qwen2moe" || arch == "qwen3moe" || arch == "gpt-oss" || arch == "glm4moe" ||
         arch == "llama4" || is_deepseek(arch) || arch == "minimax-m2" || arch == "step35" || arch == "laguna" ||
         arch == "mimo2" || arch == "hunyuan-moe" || arch == "cohere2_moe" || arch == "minimax-m3" ||
         arch == "ernie4_5-moe" || arch == "qwen35moe" || arch == "qwen3next" || arch == "qwen3vlmoe" || arch == "granitemoe" ||
         arch == "bailingmoe2" || arch == "dots1" || arch == "gemma4-moe" || arch == "granitehybrid" ||
         arch == "nemotron_h_moe" || arch == "lfm2moe" || arch == "olmoe";
}

bool is_hybrid_arch(const std::string& arch) { return arch == "qwen35" || arch == "qwen35moe" || arch == "qwen3next"; }

std::vector<DType> all_weight_types() {
  return {DType::kF32, DType::kF16, DType::kBF16, DType::kQ8_0, DType::kQ4_0,
          DType::kQ5_0, DType::kQ4_K, DType::kQ5_K, DType::kQ6_K, DType::kMXFP4};
}

bool is_bitnet(const std::string& arch) { return arch == "bitnet" || arch == "bitnet-b1.58" || arch == "bitnet-25"; }

// BitNet's sub-norms; llama.cpp's bitnet files (not Microsoft's) also one-number scales per matrix.
void add_bitnet_extras(ModelBuilder& b, const TestModelSpec& s, const std::string& p) {
  b.vector(p + "attn_sub_norm.weight", s.n_head * head_dim(s), 1.0f, 0.2f);
  b.vector(p + "ffn_sub_norm.weight", s.n_ff, 1.0f, 0.2f);
  if (s.arch != "bitnet") return;
  for (const char* m : {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"}) {
    b.vector(p + m + ".scale", 1, 1.0f, 0.5f);
  }
}

Status write_test_model(const TestModelSpec& spec, const std::string& path) {
  const TestModelSpec s = latent_converter_form(spec);
  if (s.arch == "gemma4-e2b") {  // Gemma 4 with the E2B's parts, 6 layers unless n_layer says otherwise
    TestModelSpec e = s;
    e.arch = "gemma4";
    e.n_embd_per_layer = 256;
    e.n_shared_kv_layers = 2;
    e.double_wide_shared = true;
    e.n_layer = std::max(e.n_layer, 6);  // two of them shared: the last full one needs an own one before
    return write_test_model(e, path);
  }
  if (s.arch == "gemma3n" && s.n_embd_per_layer == 0) {  // 6 layers, the last two sharing K/V
    TestModelSpec e = s;
    e.n_embd_per_layer = 256;
    e.n_shared_kv_layers = 2;
    e.n_layer = std::max(e.n_layer, 6);
    return write_test_model(e, path);
  }
  ModelBuilder b(s);
  set_metadata(s, b.writer());
  const int q_dim = s.n_head * head_dim(s);
  const int kv_dim = s.n_head_kv * head_dim(s);
  const bool gpt_oss = s.arch == "gpt-oss";
  const bool qwen2 = s.arch == "qwen2" || s.arch == "qwen2moe" || gpt_oss || s.arch == "glm4moe" || s.arch == "glm4" ||
                     s.arch == "qwen2vl" || s.arch == "seed_oss";
  const bool fused_qkv = s.arch == "phi3" || s.arch == "bailingmoe2" || s.fused_qkv;
  const bool gemma3 = s.arch == "gemma3";
  const bool gemma4 = s.arch == "gemma4" || s.arch == "gemma4-moe";
  const bool gemma = gemma3 || s.arch == "gemma2" || gemma4 || s.arch == "gemma3n";  // post-norms, tied embeddings
  const bool olmo2 = s.arch == "olmo2" || s.arch == "exaone4";  // post-norms only
  const bool post_norms = gemma || s.arch == "glm4" || olmo2;
  const bool minimax = s.arch == "minimax-m2";
  const bool whole_row_qk_norm = minimax || s.arch == "olmo2" || s.arch == "olmoe";
  const bool qk_norm = s.arch == "qwen3" || s.arch == "qwen3moe" || gemma3 || minimax || s.arch == "qwen3vl" ||
                       s.arch == "hunyuan-moe" || s.arch == "hunyuan-dense" || s.arch == "apertus" ||
                       s.arch == "minimax-m3" ||
                       s.arch == "qwen3vlmoe" || s.arch == "bailingmoe2" || s.arch == "dots1" || olmo2 ||
                       s.arch == "olmoe";
  const bool hybrid = is_hybrid_arch(s.arch);
  const bool cohere = s.arch == "cohere2" || s.arch == "command-r" || s.arch == "cohere2_moe";
  const bool tied = s.arch == "qwen3" || s.arch == "qwen35" || gemma || s.arch == "qwen3vl" || s.arch == "granite" ||
                    is_lfm2(s.arch) ||
                    s.arch == "minicpm" || is_bitnet(s.arch) ||
                    s.arch == "cohere2" || s.arch == "command-r";
  b.matrix("token_embd.weight", s.n_embd, s.n_vocab);
  // LFM2's final norm is named token_embd_norm, as llama.cpp's converter writes it.
  b.vector(is_lfm2(s.arch) ? "token_embd_norm.weight" : "output_norm.weight", s.n_embd, 1.0f, 0.2f);
  if (!tied) b.matrix("output.weight", s.n_embd, s.n_vocab);
  const int n_layer = layer_count(s);
  const int n_blocks = n_layer + (has_nextn(s.arch) ? 1 : 0);  // GLM's NextN block last
  for (int l = 0; l < n_blocks; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    if (s.arch == "deci") {  // Nemotron's layers of three kinds and their own widths
      add_deci_layer(b, s, p, l);
      continue;
    }
    if (is_nemotron_h(s.arch)) {  // Mamba-2, attention or a feed-forward, one norm each
      add_nemotron_h_layer(b, s, p, l);
      continue;
    }
    if (s.arch == "falcon-h1") {  // Mamba-2 beside attention, then the feed-forward
      add_falcon_h1_layer(b, s, p, l);
      continue;
    }
    if (s.arch == "gemma3n") {  // Gemma 3's attention inside AltUp's streams
      add_gemma3n_layer(b, s, p);
      continue;
    }
    if (!olmo2) b.vector(p + "attn_norm.weight", s.n_embd, 1.0f, 0.2f);
    if (hybrid) {
      add_hybrid_mixer(b, s, p, l);
    } else if (s.arch == "bailingmoe3" || s.arch == "kimi-linear") {
      add_kda_mixer(b, s, p, l);
    } else if (is_granite_hybrid(s.arch)) {
      add_granite_hybrid_mixer(b, s, p, l);
    } else if (is_lfm2(s.arch)) {
      add_lfm2_mixer(b, s, p, l);
    } else if (gemma4) {
      add_gemma4_attention(b, s, p, l);
    } else if (s.arch == "step35" || s.arch == "laguna") {
      add_step35_attention(b, s, p, l);
    } else if (s.arch == "mimo2") {
      add_mimo2_attention(b, s, p, l);
    } else if (is_deepseek(s.arch)) {
      add_mla_attention(b, s, p);
    } else if (fused_qkv) {
      b.matrix(p + "attn_qkv.weight", s.n_embd, q_dim + 2 * kv_dim);
      if (qwen2) b.vector(p + "attn_qkv.bias", q_dim + 2 * kv_dim, 0.0f, 0.5f);
    } else {
      b.matrix(p + "attn_q.weight", s.n_embd, q_dim);
      b.matrix(p + "attn_k.weight", s.n_embd, kv_dim);
      b.matrix(p + "attn_v.weight", s.n_embd, kv_dim);
    }
    if (qwen2 && !fused_qkv) {
      b.vector(p + "attn_q.bias", q_dim, 0.0f, 0.5f);
      b.vector(p + "attn_k.bias", kv_dim, 0.0f, 0.5f);
      b.vector(p + "attn_v.bias", kv_dim, 0.0f, 0.5f);
    }
    if (s.arch == "command-r") {  // Command R+'s gains per head
      b.vectors(p + "attn_q_norm.weight", head_dim(s), s.n_head, 0.3f, 1.0f);
      b.vectors(p + "attn_k_norm.weight", head_dim(s), s.n_head_kv, 0.3f, 1.0f);
    }
    if (qk_norm) {  // MiniMax-M2 and OLMo 2 norm each whole row
      b.vector(p + "attn_q_norm.weight", whole_row_qk_norm ? q_dim : head_dim(s), 1.0f, 0.3f);
      b.vector(p + "attn_k_norm.weight", whole_row_qk_norm ? kv_dim : head_dim(s), 1.0f, 0.3f);
    }
    if (!is_deepseek(s.arch) && s.arch != "step35" && s.arch != "laguna" &&
        s.arch != "mimo2" && !hybrid && !gemma4 && !is_granite_hybrid(s.arch) && !is_lfm2(s.arch)) {
      b.matrix(p + "attn_output.weight", q_dim, s.n_embd);
    }
    if (gpt_oss) {
      b.vector(p + "attn_output.bias", s.n_embd, 0.0f, 0.5f);
      b.vector(p + "attn_sinks.weight", s.n_head, 0.0f, 3.0f);
    }
    if (post_norms) b.vector(p + "post_attention_norm.weight", s.n_embd, 1.0f, 0.2f);
    const bool post_attention_ffn_norm = gpt_oss || s.arch == "glm4moe" || hybrid || s.arch == "seed_oss";
    if (!cohere && !olmo2) {  // Cohere's feed-forward reads the attention's norm
      b.vector(p + (post_attention_ffn_norm ? "post_attention_norm.weight" : "ffn_norm.weight"), s.n_embd, 1.0f, 0.2f);
    }
    add_ffn(b, s, p, l);
    if (is_bitnet(s.arch)) add_bitnet_extras(b, s, p);
    if (post_norms) b.vector(p + "post_ffw_norm.weight", s.n_embd, 1.0f, 0.2f);
    if (l == n_layer) {  // the NextN block's own tensors (multi-token prediction, unused)
      b.matrix(p + "nextn.eh_proj.weight", 2 * s.n_embd, s.n_embd);
      for (const char* norm : {"nextn.enorm.weight", "nextn.hnorm.weight", "nextn.shared_head_norm.weight"}) {
        b.vector(p + norm, s.n_embd, 1.0f, 0.2f);
      }
      if (s.arch == "bailingmoe2" || s.arch == "bailingmoe3") b.vector(p + "layer_output_norm.weight", s.n_embd, 1.0f, 0.2f);
    }
  }
  if (!s.rope_freqs.empty()) add_values(b.writer(), "rope_freqs.weight", s.rope_freqs_type, s.rope_freqs);
  if (gemma4 && s.rope_freqs.empty()) add_values(b.writer(), "rope_freqs.weight", DType::kF32, gemma4_rope_freqs(s));
  if (s.arch == "step35" && s.rope_freqs.empty()) {
    add_values(b.writer(), "rope_freqs.weight", DType::kF32, step35_rope_freqs(s));
  }
  if (gemma4) add_gemma4_per_layer_tables(b, s);
  if (s.arch == "gemma3n") add_gemma3n_tables(b, s);
  if (s.arch == "glm-dsa") add_indexer_tensors(b, s, n_blocks);
  if (!s.rope_factors_short.empty()) {
    add_values(b.writer(), "rope_factors_short.weight", DType::kF32, s.rope_factors_short);
  }
  if (!s.rope_factors_long.empty()) add_values(b.writer(), "rope_factors_long.weight", DType::kF32, s.rope_factors_long);
  return b.writer().write(path);
}

}  // namespace strata::testing
