// dense_ffn(): a layer's dense feed-forward over a batch of rows, as transformer.cc runs it: gated
// (SiLU, GELU, gpt-oss's clamped SwiGLU, Step 3.5's clamped SiLU, BitNet's relu^2 with its sub-norm
// and matrix scales) or without a gate (Nemotron-H's and Arcee's relu^2, Apertus's xIELU). Private to
// src/model. Row r's output depends on row r's input alone (batch invariance).
#pragma once

#include "base/thread_pool.h"
#include "model/forward_scratch.h"
#include "model/hparams.h"
#include "model/model_weights.h"

namespace strata {

// s.proj()[r] = the feed-forward of s.normed()[r] for the first n rows, of layer's width; s.gate()
// and s.up() are overwritten.
void dense_ffn(const Hparams& hp, const LayerWeights& lw, int layer, int n, ForwardScratch& s, ThreadPool& pool);

}  // namespace strata
