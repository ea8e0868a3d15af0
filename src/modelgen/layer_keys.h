// The GGUF keys mkmodel writes for the architectures whose shapes or values vary per layer (Gemma 4,
// Gemma 3n, Step 3.5, Laguna, MiMo-V2, Nemotron's DeciLM layers, Granite 4.0-H, Nemotron-H, LFM2, Ling 3.0,
// Kimi Linear, Apertus's xIELU values), Falcon-H1's Mamba-2 shapes and BitNet's gate, as llama.cpp's
// converter writes them.
// Private to src/modelgen (model_generator.cc calls them after the common keys); each does nothing for a
// spec of another architecture.
#pragma once

#include "gguf/gguf_writer.h"
#include "modelgen/model_spec.h"

namespace strata {

// Ling 3.0's kda.gate_lower_bound as mkmodel writes it (-5, the KDA safe gate's usual bound): the decay
// exp(-5 sigmoid(.)) keeps at least exp(-5) of each channel's state per position.
inline constexpr float kKdaGateLowerBound = -5.0f;

void set_gemma4_hparams(GgufWriter& w, const ModelSpec& s);
void set_gemma3n_hparams(GgufWriter& w, const ModelSpec& s);
void set_step35_hparams(GgufWriter& w, const ModelSpec& s);
void set_mimo2_hparams(GgufWriter& w, const ModelSpec& s);
void set_deci_hparams(GgufWriter& w, const ModelSpec& s);
void set_laguna_hparams(GgufWriter& w, const ModelSpec& s);
void set_mamba2_hybrid_hparams(GgufWriter& w, const ModelSpec& s);
void set_nemotron_h_hparams(GgufWriter& w, const ModelSpec& s);
void set_lfm2_hparams(GgufWriter& w, const ModelSpec& s);
void set_kda_hparams(GgufWriter& w, const ModelSpec& s);
void set_post_norm_window_hparams(GgufWriter& w, const ModelSpec& s);
void set_falcon_h1_hparams(GgufWriter& w, const ModelSpec& s);
void set_bitnet_hparams(GgufWriter& w, const ModelSpec& s);
void set_xielu_hparams(GgufWriter& w, const ModelSpec& s);

}  // namespace strata
