#include "model/short_conv.h"

#include "model/forward_matmul.h"
#include "model/recurrent_rows.h"
#include "model/row_loop.h"

namespace strata {

// s.delta_z() holds B, s.delta_out() C and s.delta_qkv() x, then B * x (convolved in place).
void short_conv(const ShortConvLayer& c, std::span<const Row> rows, KvView& kv, ForwardScratch& s, ThreadPool& pool) {
  const Hparams& hp = c.hp;
  const LayerWeights& lw = c.lw;
  const int n = static_cast<int>(rows.size());
  const int n_embd = hp.n_embd;
  const kernels::MatmulJob inputs[] = {{&lw.conv_b, s.normed(), n, s.delta_z()},
                                       {&lw.conv_c, s.normed(), n, s.delta_out()},
                                       {&lw.conv_x, s.normed(), n, s.delta_qkv()}};
  matmul_same_input(inputs, s, pool);
  {
    ProfileTimer timer(s.profile(), StepPart::kDeltaNet);
    for_each_row(pool, n, n_embd, [&](int r) {
      float* x = s.delta_qkv() + static_cast<size_t>(r) * n_embd;
      const float* b = s.delta_z() + static_cast<size_t>(r) * n_embd;
      for (int i = 0; i < n_embd; ++i) x[i] *= b[i];
    });
    convolve_runs(hp, c.layer, {lw.ssm_conv, nullptr, /*silu=*/false}, rows, kv, s, pool);  // no heads after it
    for_each_row(pool, n, n_embd, [&](int r) {
      float* y = s.delta_qkv() + static_cast<size_t>(r) * n_embd;
      const float* cv = s.delta_out() + static_cast<size_t>(r) * n_embd;
      for (int i = 0; i < n_embd; ++i) y[i] *= cv[i];
    });
  }
  matmul(lw.ssm_out, s.delta_qkv(), n, s.proj(), s, pool);
}

}  // namespace strata
