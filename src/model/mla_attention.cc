#include "model/mla_attention.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "model/attention_items.h"
#include "model/forward_matmul.h"
#include "model/row_loop.h"

namespace strata {
namespace {

// Every row's product with each head's map (maps[h]: n_in -> n_out). in(r, h) is row r's input
// to head h; it is gathered head by head into s.mla_heads_in(), all heads are multiplied in one
// pass over the pool (kernels::matmul_many: each product the bits matmul() gives it), and
// out(r, h, y) receives each result y (n_out floats).
template <typename In, typename Out>
void per_head_products(const std::vector<kernels::WeightMatrix>& maps, int n, ForwardScratch& s, ThreadPool& pool,
                       const In& in, const Out& out) {
  const int n_head = static_cast<int>(maps.size());
  const int n_in = static_cast<int>(maps[0].n_in), n_out = static_cast<int>(maps[0].n_out);
  {
    ProfileTimer timer(s.profile(), StepPart::kQkvFinish);
    for_each_row(pool, n * n_head, n_in, [&](int item) {
      std::memcpy(s.mla_heads_in() + static_cast<size_t>(item) * n_in, in(item % n, item / n), sizeof(float) * n_in);
    });
  }
  std::array<kernels::MatmulJob, kernels::kMaxMatmulJobs> jobs;
  for (int h = 0; h < n_head; ++h) {
    const size_t first = static_cast<size_t>(h) * n;
    jobs[h] = {&maps[h], s.mla_heads_in() + first * n_in, n, s.mla_heads_out() + first * n_out};
  }
  {
    ProfileTimer timer(s.profile(), maps[0].type);
    kernels::matmul_many({jobs.data(), static_cast<size_t>(n_head)}, s.matmul_scratch(), pool);
  }
  ProfileTimer timer(s.profile(), StepPart::kQkvFinish);
  for_each_row(pool, n * n_head, n_out, [&](int item) {
    out(item % n, item / n, s.mla_heads_out() + static_cast<size_t>(item) * n_out);
  });
}

// The full-width queries of every row into s.mla_q() (n_head heads of nope + n_rot values) and
// the latent rows, not yet normed or rotated, into s.k().
void project(const MlaLayer& m, int n, ForwardScratch& s, ThreadPool& pool) {
  const Hparams& hp = m.hp;
  const LayerWeights& lw = m.lw;
  // Ling 3.0's gate value per head (into s.q_gate()) with the same input.
  const bool gated = lw.attn_head_gate.data != nullptr;
  const kernels::MatmulJob gate = {&lw.attn_head_gate, s.normed(), n, s.q_gate()};
  if (hp.mla_q_rank == 0) {
    const kernels::MatmulJob jobs[] = {{&lw.wq, s.normed(), n, s.mla_q()}, {&lw.wkv_a, s.normed(), n, s.k()}, gate};
    matmul_same_input({jobs, gated ? 3u : 2u}, s, pool);
    return;
  }
  const kernels::MatmulJob jobs[] = {{&lw.wq_a, s.normed(), n, s.mla_a()}, {&lw.wkv_a, s.normed(), n, s.k()}, gate};
  matmul_same_input({jobs, gated ? 3u : 2u}, s, pool);
  {
    ProfileTimer timer(s.profile(), StepPart::kNorm);
    for_each_row(pool, n, hp.mla_q_rank, [&](int r) {
      float* a = s.mla_a() + static_cast<size_t>(r) * hp.mla_q_rank;
      kernels::rmsnorm(a, lw.q_a_norm, hp.mla_q_rank, hp.rms_eps, a);
    });
  }
  matmul(lw.wq_b, s.mla_a(), n, s.mla_q(), s, pool);
}

// Row r's latent row: its compression normed, its key part rotated (unless the layer has no rope),
// into the cache; its queries' rotated parts rotated and copied after their latent parts in s.q().
void finish_row(const MlaLayer& m, const Row& row, int r, KvView& kv, ForwardScratch& s) {
  const Hparams& hp = m.hp;
  const int rank = hp.mla_kv_rank;
  const int q_head = hp.mla_nope_dim + hp.n_rot;
  float* latent = s.k() + static_cast<size_t>(r) * hp.head_dim;
  kernels::rmsnorm(latent, m.lw.kv_a_norm, rank, hp.rms_eps, latent);
  const bool rotates = hp.layer_rotates(m.layer);  // Kimi Linear's latent layers have no rope
  if (rotates) kernels::rope(latent + rank, 1, row.pos, m.rope);
  const KvLayout& L = kv.layout();
  std::byte* block = kv.block(row.seq, 0, row.pos / L.block_tokens);
  kernels::store_kv(latent, hp.head_dim, L.type, block + L.k_offset(m.hp.kv_layer(m.layer), row.pos % L.block_tokens));

  float* q_full = s.mla_q() + static_cast<size_t>(r) * hp.n_head * q_head;
  if (rotates) kernels::rope(q_full + hp.mla_nope_dim, hp.n_head, row.pos, m.rope);
  float* q = s.q() + static_cast<size_t>(r) * hp.n_head * hp.head_dim;
  for (int h = 0; h < hp.n_head; ++h) {
    std::memcpy(q + h * hp.head_dim + rank, q_full + h * q_head + hp.mla_nope_dim, sizeof(float) * hp.n_rot);
  }
}

}  // namespace

void mla_attention(const MlaLayer& m, std::span<const Row> rows, KvView& kv, ForwardScratch& s, ThreadPool& pool) {
  const Hparams& hp = m.hp;
  const LayerWeights& lw = m.lw;
  const int n = static_cast<int>(rows.size());
  const int rank = hp.mla_kv_rank, nope = hp.mla_nope_dim, v_dim = hp.mla_v_dim;
  const int q_head = nope + hp.n_rot;
  project(m, n, s, pool);
  {
    ProfileTimer timer(s.profile(), StepPart::kQkvFinish);
    for_each_row(pool, n, hp.n_head * q_head + hp.head_dim, [&](int r) { finish_row(m, rows[r], r, kv, s); });
  }
  // Each query's no-rope part into the latent space, before its rotated part in s.q().
  per_head_products(
      lw.k_b, n, s, pool,
      [&](int r, int h) { return s.mla_q() + (static_cast<size_t>(r) * hp.n_head + h) * q_head; },
      [&](int r, int h, const float* y) {
        std::memcpy(s.q() + (static_cast<size_t>(r) * hp.n_head + h) * hp.head_dim, y, sizeof(float) * rank);
      });
  {
    ProfileTimer timer(s.profile(), StepPart::kAttention);
    attend_all({hp, m.layer, nullptr}, rows, kv, s, pool);
  }
  // Each head's output (its first mla_kv_rank values) to its value width, rows dense at
  // n_head * v_dim for the output projection (the queries in s.mla_q() are spent).
  per_head_products(
      lw.v_b, n, s, pool,
      [&](int r, int h) { return s.attn_out() + (static_cast<size_t>(r) * hp.n_head + h) * hp.head_dim; },
      [&](int r, int h, const float* y) {
        std::memcpy(s.mla_q() + (static_cast<size_t>(r) * hp.n_head + h) * v_dim, y, sizeof(float) * v_dim);
      });
  if (lw.attn_head_gate.data != nullptr) {  // Ling 3.0: each head's output times its gate's sigmoid
    ProfileTimer timer(s.profile(), StepPart::kQkvFinish);
    for_each_row(pool, n, hp.n_head * v_dim, [&](int r) {
      float* out = s.mla_q() + static_cast<size_t>(r) * hp.n_head * v_dim;
      const float* g = s.q_gate() + static_cast<size_t>(r) * hp.n_head;
      for (int h = 0; h < hp.n_head; ++h) {
        const float gate = 1.0f / (1.0f + std::exp(-g[h]));
        for (int i = 0; i < v_dim; ++i) out[h * v_dim + i] *= gate;
      }
    });
  }
  matmul(lw.wo, s.mla_q(), n, s.proj(), s, pool);
}

}  // namespace strata
