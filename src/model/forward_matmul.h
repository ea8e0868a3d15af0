// The forward pass's matrix products, timed by the step profile. Private to src/model
// (transformer.cc, mla_attention.cc).
#pragma once

#include <span>

#include "base/thread_pool.h"
#include "kernels/kernels.h"
#include "model/forward_scratch.h"

namespace strata {

// y = w x for n_rows rows of x (kernels::matmul: a row's bits never depend on the others).
inline void matmul(const kernels::WeightMatrix& w, const float* x, int n_rows, float* y, ForwardScratch& s,
                   ThreadPool& pool) {
  ProfileTimer timer(s.profile(), w.type);
  kernels::matmul(w, x, n_rows, y, s.matmul_scratch(), pool);
}

// Products of one input (q, k and v; gate and up) in one pass over the pool: one wake-up,
// one quantised copy of x and one end-of-matmul wait instead of one each, with the bits
// matmul() gives each (kernels::matmul_many). When the jobs would need more scratch than a
// single matmul (weight types with different activation blocks), they run one by one so
// the step allocates nothing. The profile books the pass under the first job's type.
inline void matmul_same_input(std::span<const kernels::MatmulJob> jobs, ForwardScratch& s, ThreadPool& pool) {
  if (kernels::matmul_many_scratch_bytes(jobs) > s.matmul_scratch().size()) {
    for (const kernels::MatmulJob& job : jobs) matmul(*job.w, job.x, job.n_rows, job.y, s, pool);
    return;
  }
  ProfileTimer timer(s.profile(), jobs[0].w->type);
  kernels::matmul_many(jobs, s.matmul_scratch(), pool);
}

}  // namespace strata
