// The float64 reference's routed experts (ReferenceForward::routed_experts): every routing rule
// the fast path's moe_ffn.cc follows, written as plain loops from the rules, not from that code.
#include <algorithm>
#include <cmath>
#include <vector>

#include "model/reference_forward.h"
#include "model/reference_ops.h"

namespace strata::testing {

using namespace reference_ops;  // NOLINT: the reference's own vocabulary

Vec ReferenceForward::routed_experts(const Layer& l, const Vec& router_x, const Vec& x) const {
  // Gate values: softmax over all router logits, or a sigmoid of each.
  Vec p = matvec(l.router, router_x);
  if (!l.router_b.empty()) add(p, l.router_b);
  if (hp_.expert_sigmoid) {
    for (double& v : p) v = 1.0 / (1.0 + std::exp(-v));
  } else {
    const double max_logit = *std::max_element(p.begin(), p.end());
    double sum = 0;
    for (double& v : p) sum += (v = std::exp(v - max_logit));
    for (double& v : p) v /= sum;
  }
  // The top k by gate value plus selection bias; their gate values are the weights.
  auto rank = [&](int e) { return l.exp_probs_b.empty() ? p[e] : p[e] + l.exp_probs_b[static_cast<size_t>(e)]; };
  // Group-limited routing: only the groups whose two best ranks sum highest.
  const int group_size = hp_.n_expert / hp_.n_expert_groups;
  std::vector<int> groups;
  while (static_cast<int>(groups.size()) < hp_.n_expert_groups_used) {
    int top = -1;
    double top_score = 0;
    for (int g = 0; g < hp_.n_expert_groups; ++g) {
      if (std::find(groups.begin(), groups.end(), g) != groups.end()) continue;
      std::vector<double> ranks;
      for (int e = g * group_size; e < (g + 1) * group_size; ++e) ranks.push_back(rank(e));
      std::sort(ranks.rbegin(), ranks.rend());
      const double score = ranks[0] + (ranks.size() > 1 ? ranks[1] : 0.0);
      if (top < 0 || score > top_score) top = g, top_score = score;
    }
    groups.push_back(top);
  }
  std::vector<int> chosen;
  double chosen_sum = 0;
  for (int j = 0; j < hp_.n_expert_used; ++j) {
    int best = -1;
    for (int e = 0; e < hp_.n_expert; ++e) {
      if (std::find(chosen.begin(), chosen.end(), e) != chosen.end()) continue;
      if (std::find(groups.begin(), groups.end(), e / group_size) == groups.end()) continue;
      if (best < 0 || rank(e) > rank(best)) best = e;
    }
    chosen.push_back(best);
    chosen_sum += p[best];
  }
  Vec out(x.size(), 0.0);
  for (int e : chosen) {
    const double norm = std::max(chosen_sum, static_cast<double>(hp_.expert_weights_norm_min));  // Laguna's floor
    double w = (hp_.expert_weights_norm ? p[e] / norm : p[e]) * hp_.expert_weights_scale;
    if (!l.exp_out_scale.empty()) w *= l.exp_out_scale[static_cast<size_t>(e)];  // Gemma 4's
    // Llama 4 weights the expert's input instead of its output.
    Vec in = x;
    if (hp_.expert_weight_input) {
      for (double& v : in) v *= w;
    }
    const size_t n_ff = static_cast<size_t>(hp_.n_ff_exp);
    const Vec y = hp_.ffn_relu_sq ? relu_sq_ffn(l.exp_up, l.exp_down, static_cast<size_t>(e), n_ff, in)
                                  : swiglu(l.exp_gate, l.exp_up, l.exp_down, static_cast<size_t>(e), n_ff, in, gate_of(hp_),
                                           l.exp_gate_b, l.exp_up_b, l.exp_down_b, hp_.ffn_limit(l.index, true));
    for (size_t i = 0; i < out.size(); ++i) out[i] += (hp_.expert_weight_input ? 1.0 : w) * y[i];
  }
  return out;
}

}  // namespace strata::testing
