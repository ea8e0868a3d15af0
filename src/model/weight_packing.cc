// pack_weights(): the matrices the active kernels read faster in their own layout.
#include <algorithm>
#include <thread>
#include <vector>

#include "base/thread_pool.h"
#include "model/model_weights.h"

namespace strata {

void pack_weights(const GgufFile& gguf, ModelWeights& w) {
  std::vector<kernels::WeightMatrix*> matrices = {&w.output};
  for (LayerWeights& l : w.layers) {
    for (kernels::WeightMatrix* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) matrices.push_back(m);
  }
  std::vector<size_t> offsets;
  size_t total_bytes = 0;
  for (const kernels::WeightMatrix* m : matrices) {
    offsets.push_back(total_bytes);
    // 64-byte aligned starts, as the SIMD loads like them.
    total_bytes += (kernels::packed_matrix_bytes(*m) + 63) / 64 * 64;
  }
  if (total_bytes == 0) return;
  w.packed.resize(total_bytes);
  ThreadPool pool(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  pool.parallel_for(static_cast<int>(matrices.size()), [&](int i, int) {
    kernels::WeightMatrix& m = *matrices[static_cast<size_t>(i)];
    if (kernels::packed_matrix_bytes(m) == 0) return;
    std::byte* dst = w.packed.data() + offsets[static_cast<size_t>(i)];
    kernels::pack_matrix(m, dst);
    m.packed = dst;
    if (m.data != w.token_embd.data) {
      gguf.release_pages(m.data, static_cast<size_t>(m.n_out) * m.row_bytes);
    }
  });
}

}  // namespace strata
