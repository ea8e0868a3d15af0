// The routed feed-forward block of a mixture-of-experts layer. Private to src/model.
//
// Exactness: a row's routing reads only its own router logits and the layer's weights (gate
// values, top-k with ties to the lower id; Hparams: routing); each expert multiplies the rows routed to it with the
// batch-invariant matmul, so an expert's output for a row does not depend on which other rows
// share the expert; a row's k expert outputs are added in the order they were chosen. So a
// row's bits never depend on the other rows of the batch.
//
// Speed: rows routed to the same expert are gathered and multiplied together (one read of the
// expert's weights), an expert with no rows is not read, and all experts' products of a layer
// run in one pass over the pool (kernels::matmul_many).
#pragma once

#include "base/thread_pool.h"
#include "model/forward_scratch.h"
#include "model/hparams.h"
#include "model/model_weights.h"

namespace strata {

// s.proj()[r] = the MoE feed-forward output of s.normed()[r] (the ffn-normed hidden row), for
// n_rows rows; adds the layer's routing counts to s.expert_tokens() and the expert bytes it
// read to s.expert_bytes_read(). Uses s.gate()/s.up() for the shared expert. The router reads
// router_input's rows (n_embd each) when given (Gemma 4), else s.normed()'s.
void moe_ffn(const Hparams& hp, const LayerWeights& lw, int layer, int n_rows, ForwardScratch& s, ThreadPool& pool,
             const float* router_input = nullptr);

}  // namespace strata
