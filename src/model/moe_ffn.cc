#include "model/moe_ffn.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "kernels/kernels.h"
#include "model/row_loop.h"

namespace strata {
namespace {

using kernels::MatmulJob;

// Group-limited routing (Hparams: routing): allowed[e] says whether expert e's group is among
// the n_expert_groups_used whose two best ranks sum highest (ties to the lower group).
template <typename Rank>
void allow_best_groups(const Hparams& hp, const Rank& rank, std::array<bool, kMaxExperts>& allowed) {
  const int n_groups = hp.n_expert_groups, size = hp.n_expert / n_groups;
  std::array<float, kMaxExperts> score{};
  std::array<bool, kMaxExperts> chosen{};
  for (int g = 0; g < n_groups; ++g) {
    float best = -INFINITY, second = -INFINITY;
    for (int e = g * size; e < (g + 1) * size; ++e) {
      const float r = rank(e);
      if (r > best) {
        second = best;
        best = r;
      } else if (r > second) {
        second = r;
      }
    }
    score[g] = size > 1 ? best + second : best;
  }
  for (int j = 0; j < hp.n_expert_groups_used; ++j) {
    int top = -1;
    for (int g = 0; g < n_groups; ++g) {
      if (!chosen[g] && (top < 0 || score[g] > score[top])) top = g;
    }
    chosen[top] = true;
  }
  for (int e = 0; e < hp.n_expert; ++e) allowed[e] = chosen[e / size];
}

// Row r's experts, best first, and their weights (Hparams: routing). Gate values are
// softmax(logits) or, with expert_sigmoid, sigmoid of each logit (written over logits); the
// choice ranks gate value plus selection bias (when given) with a strict comparison, so ties
// go to the lower id, among the experts of the best groups when routing is group-limited.
// Without a bias the softmax's order is the logits', so its probabilities are formed only for
// the chosen; with one (ERNIE 4.5) the bias adds to the probabilities, as llama.cpp adds it.
void route_row(const Hparams& hp, float* logits, const float* selection_bias, int32_t* expert, float* weight) {
  const int n = hp.n_expert;
  const int k = hp.n_expert_used;
  float max_logit = logits[0];
  for (int e = 1; e < n; ++e) max_logit = logits[e] > max_logit ? logits[e] : max_logit;
  const bool softmax_probs = !hp.expert_sigmoid && selection_bias != nullptr;
  if (hp.expert_sigmoid) {
    for (int e = 0; e < n; ++e) logits[e] = 1.0f / (1.0f + std::exp(-logits[e]));
  } else if (softmax_probs) {
    float total = 0.0f;
    for (int e = 0; e < n; ++e) total += (logits[e] = std::exp(logits[e] - max_logit));
    for (int e = 0; e < n; ++e) logits[e] /= total;
  }
  const bool gates = hp.expert_sigmoid || softmax_probs;  // logits now hold the gate values
  auto rank = [&](int e) { return selection_bias != nullptr ? logits[e] + selection_bias[e] : logits[e]; };
  std::array<bool, kMaxExperts> allowed;
  allowed.fill(true);
  if (hp.n_expert_groups_used < hp.n_expert_groups) allow_best_groups(hp, rank, allowed);
  for (int j = 0; j < k; ++j) {
    int best = -1;
    for (int e = 0; e < n; ++e) {
      bool taken = !allowed[e];
      for (int i = 0; i < j; ++i) taken = taken || expert[i] == e;
      if (taken) continue;
      // NaN logits never win, but some expert is always chosen.
      if (best < 0 || rank(e) > rank(best)) best = e;
    }
    expert[j] = best;
    weight[j] = gates ? logits[best] : std::exp(logits[best] - max_logit);
  }
  float sum = 1.0f;
  if (hp.expert_weights_norm) {
    sum = 0.0f;
    for (int j = 0; j < k; ++j) sum += weight[j];
    sum = std::max(sum, hp.expert_weights_norm_min);  // Laguna's floor
  } else if (!gates) {
    sum = 0.0f;
    for (int e = 0; e < n; ++e) sum += std::exp(logits[e] - max_logit);
  }
  for (int j = 0; j < k; ++j) weight[j] /= sum;
  if (hp.expert_weights_scale != 1.0f) {
    for (int j = 0; j < k; ++j) weight[j] *= hp.expert_weights_scale;
  }
}

void add_bias(float* x, const float* b, int n) {
  for (int i = 0; i < n; ++i) x[i] += b[i];
}

// The expert whose gathered rows hold slot g (route_and_gather: expert e's are [first[e], first[e + 1])).
int expert_of_slot(const int32_t* first, int n_expert, int g) {
  return static_cast<int>(std::upper_bound(first, first + n_expert + 1, g) - first) - 1;
}

// relu(x)^2 in place (Nemotron 3's activation, without a gate).
void relu_sq(float* x, int n) {
  for (int i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] * x[i] : 0.0f;
}

// One gathered row's gate (in place): its expert's biases (gpt-oss), then the activation
// (clamped at Step 3.5's routed limit when the layer has one).
void activate_slot(const Hparams& hp, const LayerWeights& lw, float limit, int g, ForwardScratch& s) {
  const size_t at = static_cast<size_t>(g) * hp.n_ff_exp;
  float* gate = s.expert_gate() + at;
  float* up = s.expert_up() + at;
  if (lw.exp_gate_b != nullptr) {
    const size_t e = static_cast<size_t>(expert_of_slot(s.expert_first(), hp.n_expert, g));
    add_bias(gate, lw.exp_gate_b + e * hp.n_ff_exp, hp.n_ff_exp);
    add_bias(up, lw.exp_up_b + e * hp.n_ff_exp, hp.n_ff_exp);
  }
  if (hp.ffn_relu_sq) {  // Nemotron 3: no gate; the up projection landed in gate's place
    relu_sq(gate, hp.n_ff_exp);
  } else if (limit > 0.0f) {
    kernels::silu_mul_clamped(gate, up, hp.n_ff_exp, limit);
  } else if (hp.swiglu_oai) {
    kernels::swiglu_oai(gate, up, hp.n_ff_exp);
  } else if (hp.ffn_gelu) {  // Gemma 4
    kernels::gelu_mul(gate, up, hp.n_ff_exp);
  } else {
    kernels::silu_mul(gate, up, hp.n_ff_exp);
  }
}

size_t expert_matrix_bytes(const kernels::WeightMatrix& m) { return static_cast<size_t>(m.n_out) * m.row_bytes; }

// Routes every row, then gathers each expert's rows contiguously (in row order) into
// s.expert_x(): expert e's rows are [first[e], first[e + 1]); route_slot says where each of a
// row's routes landed. Routing and the row copies run on the pool (each row's routing reads only
// its own logits; each copy writes its own slot); the counts and slots are a serial integer pass.
void route_and_gather(const Hparams& hp, const LayerWeights& lw, int layer, int n_rows, ForwardScratch& s,
                      ThreadPool& pool) {
  const int k = hp.n_expert_used;
  const int n = hp.n_expert;
  int32_t* first = s.expert_first();
  int32_t* fill = first + n + 1;
  std::memset(first, 0, sizeof(int32_t) * static_cast<size_t>(2 * (n + 1)));
  for_each_row(pool, n_rows, n * k, [&](int r) {
    float* logits = s.router_logits() + static_cast<size_t>(r) * n;
    if (lw.router_b != nullptr) add_bias(logits, lw.router_b, n);
    route_row(hp, logits, lw.exp_probs_b, s.route_expert() + r * k, s.route_weight() + r * k);
    if (lw.exp_out_scale != nullptr) {  // Gemma 4: each expert's output scale
      for (int j = 0; j < k; ++j) s.route_weight()[r * k + j] *= lw.exp_out_scale[s.route_expert()[r * k + j]];
    }
  });
  for (int g = 0; g < n_rows * k; ++g) ++first[s.route_expert()[g] + 1];
  uint32_t* tokens = s.expert_tokens().data() + static_cast<size_t>(layer) * n;
  for (int e = 0; e < n; ++e) {
    tokens[e] += static_cast<uint32_t>(first[e + 1]);
    first[e + 1] += first[e];
  }
  for (int g = 0; g < n_rows * k; ++g) {
    const int e = s.route_expert()[g];
    s.route_slot()[g] = first[e] + fill[e]++;
  }
  for_each_row(pool, n_rows, k * hp.n_embd, [&](int r) {
    const float* row = s.normed() + static_cast<size_t>(r) * hp.n_embd;
    for (int j = 0; j < k; ++j) {
      float* x = s.expert_x() + static_cast<size_t>(s.route_slot()[r * k + j]) * hp.n_embd;
      std::memcpy(x, row, sizeof(float) * hp.n_embd);
      if (hp.expert_weight_input) {  // Llama 4: the weight scales the expert's input
        const float w = s.route_weight()[r * k + j];
        for (int i = 0; i < hp.n_embd; ++i) x[i] *= w;
      }
    }
  });
}

// The products of experts that received rows (first the gate and up of each, then, with
// down=true, the down projections), plus the shared expert's; returns the job count.
int expert_jobs(const Hparams& hp, const LayerWeights& lw, int n_rows, bool down, ForwardScratch& s,
                std::array<MatmulJob, kernels::kMaxMatmulJobs>& jobs, uint64_t* bytes_read) {
  const int32_t* first = s.expert_first();
  int n_jobs = 0;
  for (int e = 0; e < hp.n_expert; ++e) {
    const int count = first[e + 1] - first[e];
    if (count == 0) continue;
    const size_t ff_at = static_cast<size_t>(first[e]) * hp.n_ff_exp;
    const size_t embd_at = static_cast<size_t>(first[e]) * hp.n_embd;
    const bool gated = !lw.exp_gate.empty();  // Nemotron 3's experts: up alone, into the gate's place
    if (down) {
      jobs[n_jobs++] = {&lw.exp_down[e], s.expert_gate() + ff_at, count, s.expert_out() + embd_at};
      *bytes_read += (gated ? expert_matrix_bytes(lw.exp_gate[e]) : 0) + expert_matrix_bytes(lw.exp_up[e]) +
                     expert_matrix_bytes(lw.exp_down[e]);
    } else if (gated) {
      jobs[n_jobs++] = {&lw.exp_gate[e], s.expert_x() + embd_at, count, s.expert_gate() + ff_at};
      jobs[n_jobs++] = {&lw.exp_up[e], s.expert_x() + embd_at, count, s.expert_up() + ff_at};
    } else {
      jobs[n_jobs++] = {&lw.exp_up[e], s.expert_x() + embd_at, count, s.expert_gate() + ff_at};
    }
  }
  if (hp.n_ff_shexp > 0) {
    if (down) {
      jobs[n_jobs++] = {&lw.shexp_down, s.gate(), n_rows, s.shared_out()};
    } else if (hp.ffn_relu_sq) {  // up alone, into the gate's place
      jobs[n_jobs++] = {&lw.shexp_up, s.normed(), n_rows, s.gate()};
    } else {
      jobs[n_jobs++] = {&lw.shexp_gate, s.normed(), n_rows, s.gate()};
      jobs[n_jobs++] = {&lw.shexp_up, s.normed(), n_rows, s.up()};
    }
  }
  return n_jobs;
}

// proj[r] = sum over r's routes, in the order chosen, of weight * expert output (plus its
// down bias, gpt-oss; Llama 4 weighted the input instead); plus the shared expert's output,
// scaled by its sigmoid gate when it has one.
void combine_row(const Hparams& hp, const LayerWeights& lw, int r, ForwardScratch& s) {
  const int k = hp.n_expert_used;
  const int n_embd = hp.n_embd;
  float* out = s.proj() + static_cast<size_t>(r) * n_embd;
  for (int j = 0; j < k; ++j) {
    const float w = hp.expert_weight_input ? 1.0f : s.route_weight()[r * k + j];
    float* y = s.expert_out() + static_cast<size_t>(s.route_slot()[r * k + j]) * n_embd;
    if (lw.exp_down_b != nullptr) {
      add_bias(y, lw.exp_down_b + static_cast<size_t>(s.route_expert()[r * k + j]) * n_embd, n_embd);
    }
    if (j == 0) {
      for (int i = 0; i < n_embd; ++i) out[i] = w * y[i];
    } else {
      for (int i = 0; i < n_embd; ++i) out[i] += w * y[i];
    }
  }
  if (hp.n_ff_shexp > 0) {
    const float* y = s.shared_out() + static_cast<size_t>(r) * n_embd;
    if (hp.shexp_gated) {
      const float g = 1.0f / (1.0f + std::exp(-s.shared_gate()[r]));
      for (int i = 0; i < n_embd; ++i) out[i] += g * y[i];
    } else {
      for (int i = 0; i < n_embd; ++i) out[i] += y[i];
    }
  }
}

}  // namespace

void moe_ffn(const Hparams& hp, const LayerWeights& lw, int layer, int n_rows, ForwardScratch& s, ThreadPool& pool,
             const float* router_input) {
  std::array<MatmulJob, kernels::kMaxMatmulJobs> jobs;
  int n_jobs = 0;
  jobs[n_jobs++] = {&lw.router, router_input != nullptr ? router_input : s.normed(), n_rows, s.router_logits()};
  if (hp.n_ff_shexp > 0 && hp.shexp_gated) {
    jobs[n_jobs++] = {&lw.shexp_gate_inp, s.normed(), n_rows, s.shared_gate()};
  }
  kernels::matmul_many({jobs.data(), static_cast<size_t>(n_jobs)}, s.matmul_scratch(), pool);

  route_and_gather(hp, lw, layer, n_rows, s, pool);
  uint64_t bytes_read = 0;
  n_jobs = expert_jobs(hp, lw, n_rows, /*down=*/false, s, jobs, &bytes_read);
  kernels::matmul_many({jobs.data(), static_cast<size_t>(n_jobs)}, s.matmul_scratch(), pool);

  const int n_routes = n_rows * hp.n_expert_used;
  const float routed_limit = hp.ffn_limit(layer, true);
  for_each_row(pool, n_routes, hp.n_ff_exp, [&](int g) { activate_slot(hp, lw, routed_limit, g, s); });
  if (hp.n_ff_shexp > 0) {
    const float shared_limit = hp.ffn_limit(layer, false);
    for_each_row(pool, n_rows, hp.n_ff_shexp, [&](int r) {
      const size_t at = static_cast<size_t>(r) * hp.n_ff_shexp;
      if (hp.ffn_relu_sq) {
        relu_sq(s.gate() + at, hp.n_ff_shexp);
      } else if (shared_limit > 0.0f) {
        kernels::silu_mul_clamped(s.gate() + at, s.up() + at, hp.n_ff_shexp, shared_limit);
      } else if (hp.swiglu_oai) {  // MiniMax-M3's shared expert
        kernels::swiglu_oai(s.gate() + at, s.up() + at, hp.n_ff_shexp);
      } else {
        kernels::silu_mul(s.gate() + at, s.up() + at, hp.n_ff_shexp);
      }
    });
  }
  n_jobs = expert_jobs(hp, lw, n_rows, /*down=*/true, s, jobs, &bytes_read);
  kernels::matmul_many({jobs.data(), static_cast<size_t>(n_jobs)}, s.matmul_scratch(), pool);
  s.expert_bytes_read() += bytes_read;

  for_each_row(pool, n_rows, hp.n_embd, [&](int r) { combine_row(hp, lw, r, s); });
}

}  // namespace strata
