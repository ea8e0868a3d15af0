#include "model/mla_attention.h"

#include <algorithm>
#include <cstring>

#include "model/attention_items.h"
#include "model/forward_matmul.h"
#include "model/row_loop.h"

namespace strata {
namespace {

// out = the sum over i < n_in of x[i] times row i of m (n_in rows of n_out floats). Each output
// adds its terms in the order of i, whichever lanes the compiler computes it in.
void rows_times(const float* x, const float* m, int n_in, int n_out, float* out) {
  std::fill_n(out, n_out, 0.0f);
  for (int i = 0; i < n_in; ++i) {
    const float xi = x[i];
    const float* row = m + static_cast<size_t>(i) * n_out;
    for (int o = 0; o < n_out; ++o) out[o] += xi * row[o];
  }
}

// The full-width queries of every row into s.mla_q() (n_head heads of nope + n_rot values) and
// the latent rows, not yet normed or rotated, into s.k().
void project(const MlaLayer& m, int n, ForwardScratch& s, ThreadPool& pool) {
  const Hparams& hp = m.hp;
  const LayerWeights& lw = m.lw;
  if (hp.mla_q_rank == 0) {
    const kernels::MatmulJob jobs[] = {{&lw.wq, s.normed(), n, s.mla_q()}, {&lw.wkv_a, s.normed(), n, s.k()}};
    matmul_same_input(jobs, s, pool);
    return;
  }
  const kernels::MatmulJob jobs[] = {{&lw.wq_a, s.normed(), n, s.mla_a()}, {&lw.wkv_a, s.normed(), n, s.k()}};
  matmul_same_input(jobs, s, pool);
  {
    ProfileTimer timer(s.profile(), StepPart::kNorm);
    for_each_row(pool, n, hp.mla_q_rank, [&](int r) {
      float* a = s.mla_a() + static_cast<size_t>(r) * hp.mla_q_rank;
      kernels::rmsnorm(a, lw.q_a_norm, hp.mla_q_rank, hp.rms_eps, a);
    });
  }
  matmul(lw.wq_b, s.mla_a(), n, s.mla_q(), s, pool);
}

// Row r's latent row: its compression normed, its key part rotated, into the cache; its queries'
// rotated parts rotated and copied after their latent parts in s.q().
void finish_row(const MlaLayer& m, const Row& row, int r, KvView& kv, ForwardScratch& s) {
  const Hparams& hp = m.hp;
  const int rank = hp.mla_kv_rank;
  const int q_head = hp.mla_nope_dim + hp.n_rot;
  float* latent = s.k() + static_cast<size_t>(r) * hp.head_dim;
  kernels::rmsnorm(latent, m.lw.kv_a_norm, rank, hp.rms_eps, latent);
  kernels::rope(latent + rank, 1, row.pos, m.rope);
  const KvLayout& L = kv.layout();
  std::byte* block = kv.block(row.seq, row.pos / L.block_tokens);
  kernels::store_kv(latent, hp.head_dim, L.type, block + L.k_offset(m.layer, row.pos % L.block_tokens));

  float* q_full = s.mla_q() + static_cast<size_t>(r) * hp.n_head * q_head;
  kernels::rope(q_full + hp.mla_nope_dim, hp.n_head, row.pos, m.rope);
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
    // Each (row, head): the query's no-rope part into the latent space.
    for_each_row(pool, n * hp.n_head, nope * rank, [&](int item) {
      const int r = item / hp.n_head, h = item % hp.n_head;
      const float* q_nope = s.mla_q() + (static_cast<size_t>(r) * hp.n_head + h) * q_head;
      float* q = s.q() + (static_cast<size_t>(r) * hp.n_head + h) * hp.head_dim;
      rows_times(q_nope, lw.k_b_t + static_cast<size_t>(h) * nope * rank, nope, rank, q);
    });
  }
  {
    ProfileTimer timer(s.profile(), StepPart::kAttention);
    attend_all({hp, m.layer, nullptr}, rows, kv, s, pool);
  }
  {
    // Each (row, head): the first mla_kv_rank values of its output to its value width, rows dense
    // at n_head * v_dim for the output projection (the queries in s.mla_q() are spent).
    ProfileTimer timer(s.profile(), StepPart::kQkvFinish);
    for_each_row(pool, n * hp.n_head, rank * v_dim, [&](int item) {
      const int r = item / hp.n_head, h = item % hp.n_head;
      const float* out = s.attn_out() + (static_cast<size_t>(r) * hp.n_head + h) * hp.head_dim;
      float* value = s.mla_q() + (static_cast<size_t>(r) * hp.n_head + h) * v_dim;
      rows_times(out, lw.v_b_t + static_cast<size_t>(h) * rank * v_dim, rank, v_dim, value);
    });
  }
  matmul(lw.wo, s.mla_q(), n, s.proj(), s, pool);
}

}  // namespace strata
