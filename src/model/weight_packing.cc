// pack_weights(): the matrices the active kernels read faster in their own layout.
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "base/thread_pool.h"
#include "model/model_weights.h"

namespace strata {

namespace {

size_t file_bytes(const kernels::WeightMatrix& m) { return static_cast<size_t>(m.n_out) * m.row_bytes; }

// Sums finished matrices' bytes and passes them on about once per percent (an MoE file has
// tens of thousands of expert matrices), serialised so the callback needs no locking.
class ProgressMeter {
 public:
  ProgressMeter(const PackProgress& progress, uint64_t total_bytes) : progress_(progress), total_(total_bytes) {}
  void add(uint64_t bytes) {
    if (!progress_) return;
    std::lock_guard<std::mutex> lock(mu_);
    done_ += bytes;
    const uint64_t percent = total_ > 0 ? done_ * 100 / total_ : 100;
    if (percent == last_percent_ && done_ != total_) return;
    last_percent_ = percent;
    progress_(done_, total_);
  }

 private:
  const PackProgress& progress_;
  const uint64_t total_;
  std::mutex mu_;
  uint64_t done_ = 0;
  uint64_t last_percent_ = UINT64_MAX;
};

}  // namespace

void pack_weights(const GgufFile& gguf, ModelWeights& w, const PackProgress& progress) {
  std::vector<kernels::WeightMatrix*> matrices = all_matrices(w);
  uint64_t all_bytes = 0;
  for (const kernels::WeightMatrix* m : matrices) all_bytes += file_bytes(*m);
  ProgressMeter meter(progress, all_bytes);
  std::vector<size_t> offsets;
  size_t total_bytes = 0;
  for (const kernels::WeightMatrix* m : matrices) {
    offsets.push_back(total_bytes);
    // 64-byte aligned starts, as the SIMD loads like them.
    total_bytes += (kernels::packed_matrix_bytes(*m) + 63) / 64 * 64;
  }
  if (total_bytes == 0) {
    meter.add(all_bytes);
    return;
  }
  w.packed.resize(total_bytes);
  ThreadPool pool(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  pool.parallel_for(static_cast<int>(matrices.size()), [&](int i, int) {
    kernels::WeightMatrix& m = *matrices[static_cast<size_t>(i)];
    if (kernels::packed_matrix_bytes(m) == 0) {
      meter.add(file_bytes(m));
      return;
    }
    std::byte* dst = w.packed.data() + offsets[static_cast<size_t>(i)];
    kernels::pack_matrix(m, dst);
    m.packed = dst;
    if (m.data != w.token_embd.data) {
      gguf.release_pages(m.data, file_bytes(m));
    }
    meter.add(file_bytes(m));
  });
}

}  // namespace strata
