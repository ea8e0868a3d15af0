// mla_attention(): one layer of Multi-head Latent Attention (DeepSeek-V2/V3, Kimi K2; Hparams
// says what it computes) for a batch of rows, from s.normed() to s.proj(). Private to src/model.
//
// The cache holds one latent row per token (KvLayout::v_is_k), which every head attends over as
// its key and value: a query head is taken into the latent space first (its no-rope part times
// the head's attn_k_b), and a head's latent output back to its value width (times attn_v_b), so
// K/V per token is mla_kv_rank + n_rot values instead of n_head full keys and values.
//
// Exactness: every row's latent row is in the cache before any row attends (attend_all), and the
// steps around the matmuls read and write only their own row, so a row's bits never depend on
// the other rows of the batch.
#pragma once

#include <span>

#include "base/thread_pool.h"
#include "kernels/kernels.h"
#include "model/forward_scratch.h"
#include "model/hparams.h"
#include "model/kv_view.h"
#include "model/model.h"
#include "model/model_weights.h"

namespace strata {

struct MlaLayer {
  const Hparams& hp;
  const kernels::RopeParams& rope;  // head_dim: a full query head (mla_nope_dim + n_rot)
  const LayerWeights& lw;
  int layer;
};

void mla_attention(const MlaLayer& m, std::span<const Row> rows, KvView& kv, ForwardScratch& s, ThreadPool& pool);

}  // namespace strata
