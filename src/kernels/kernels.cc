// Public kernel entry points: argument checks, scratch layout and the split of matmul
// work over threads. The arithmetic lives in the dispatched tables.
#include "kernels/kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/task_ranges.h"
#include "kernels/kernel_table.h"
#include "kernels/packed_layouts.h"
#include "kernels/reference/reference.h"

namespace strata::kernels {

namespace {

bool is_float_type(DType t) { return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16; }

// Output rows per parallel task: a multiple of 16 (whole SIMD tiles) and about 24 tasks
// per thread. Each thread takes one contiguous range of tasks (TaskRanges: it streams one
// run of the weights) and then steals single tasks, so the end of a matrix leaves at most a
// few percent of it to one thread. Only throughput depends on this; every output element is computed
// by the same code whatever chunk it lands in.
int64_t whole_tiles(int64_t rows) {
  const int64_t rounded = (rows + 15) / 16 * 16;
  return rounded < 16 ? 16 : rounded;
}

int64_t rows_per_task(int64_t n_out, int n_threads) {
  return whole_tiles((n_out + n_threads * 24 - 1) / (n_threads * 24));
}

// The same for one job of a matmul_many() pass, sized by the whole pass rather than by the
// job: tasks of about equal work (output rows x inputs x input rows) across jobs, about 24
// per thread in all. A decode step's small expert matrices then stream in long runs (a few
// tasks each) instead of 48 short ones each, which the hardware prefetchers serve better.
int64_t rows_per_task_in_pass(int64_t n_out, int64_t n_in, int n_rows, double pass_work, int n_threads) {
  const double row_work = static_cast<double>(n_in) * (n_rows > 0 ? n_rows : 1);
  const double task_work = pass_work / (n_threads * 24.0);
  const auto target = static_cast<int64_t>(task_work / row_work) + 1;
  return whole_tiles(target < n_out ? target : n_out);
}

void fill_nan(float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::numeric_limits<float>::quiet_NaN();
}

// Each input row to a Q8 activation row in scratch (grown if the caller under-sized it).
// Rows are independent, so splitting them over threads cannot change any bits.
const std::byte* quantize_inputs(const KernelTable& table, const Q8RowLayout& layout, const float* x, int n_rows,
                                 AlignedBuffer& scratch, ThreadPool& pool) {
  const size_t need = static_cast<size_t>(n_rows) * layout.row_bytes;
  if (scratch.size() < need) scratch.resize(need);
  std::byte* xq = scratch.data();
  auto quantize = [&](int r, int) {
    table.quantize_q8_row(x + static_cast<int64_t>(r) * layout.n_in, layout.n_in, layout.block, xq + r * layout.row_bytes);
  };
  if (n_rows >= 4) {
    pool.parallel_for(n_rows, [&](int r, int t) { quantize(r, t); });
  } else {
    for (int r = 0; r < n_rows; ++r) quantize(r, 0);
  }
  return xq;
}

}  // namespace

bool matmul_supports(DType type) {
  switch (type) {
    case DType::kF32: case DType::kF16: case DType::kBF16: case DType::kQ8_0: case DType::kQ4_0:
    case DType::kQ5_0: case DType::kQ4_K: case DType::kQ5_K: case DType::kQ6_K:
    case DType::kIQ4_NL: case DType::kIQ4_XS: case DType::kQ3_K: case DType::kQ2_K: case DType::kQ4_1:
    case DType::kQ5_1: case DType::kIQ3_S: case DType::kIQ3_XXS: case DType::kIQ2_XXS: case DType::kIQ2_XS:
    case DType::kIQ2_S: case DType::kIQ1_S: case DType::kIQ1_M: case DType::kMXFP4: case DType::kTQ1_0:
    case DType::kTQ2_0:
      return true;
    default:
      return false;
  }
}

Status check_weight_matrix(const WeightMatrix& w) {
  if (!matmul_supports(w.type)) {
    return Status::Unsupported("matmul: weight type " + std::string(dtype_name(w.type)) + " is not supported");
  }
  if (w.n_out <= 0 || w.n_in <= 0) {
    return Status::InvalidArgument("matmul: matrix shape " + std::to_string(w.n_out) + " x " +
                                   std::to_string(w.n_in) + " is empty");
  }
  const auto row_bytes = dtype_row_bytes(w.type, static_cast<uint64_t>(w.n_in));
  if (!row_bytes) {
    return Status::InvalidArgument("matmul: row width " + std::to_string(w.n_in) + " is not a multiple of the " +
                                   std::string(dtype_name(w.type)) + " block size " +
                                   std::to_string(dtype_info(w.type).block_size));
  }
  if (!is_float_type(w.type) && w.n_in % kQK != 0) {
    return Status::InvalidArgument("matmul: row width must be a multiple of 32 for quantised weights");
  }
  if (w.row_bytes != *row_bytes) {
    return Status::InvalidArgument("matmul: row_bytes " + std::to_string(w.row_bytes) + " != " +
                                   std::to_string(*row_bytes) + " for " + std::to_string(w.n_in) + " " +
                                   std::string(dtype_name(w.type)) + " elements");
  }
  if (w.data == nullptr) return Status::InvalidArgument("matmul: weight data is null");
  return Status::Ok();
}

namespace {

using RowsFn = void (*)(const MatmulArgs& args, int64_t o_begin, int64_t o_end);

// The table's kernel over the packed layout of w's type; nullptr when it has none.
RowsFn packed_rows_fn(const KernelTable& table, DType type) {
  const PackedLayout* layout = packed_layout(type);
  return layout != nullptr ? table.*(layout->kernel) : nullptr;
}

bool packs(const KernelTable& table, const WeightMatrix& w) {
  return packed_rows_fn(table, w.type) != nullptr && check_weight_matrix(w).ok();
}

}  // namespace

size_t packed_matrix_bytes(const WeightMatrix& w) {
  return packs(active_table(), w) ? packed_layout(w.type)->bytes(w.n_out, w.n_in) : 0;
}

void pack_matrix(const WeightMatrix& w, std::byte* dst) {
  if (packs(active_table(), w)) packed_layout(w.type)->pack(w, dst);
}

size_t matmul_scratch_bytes(DType type, int64_t n_in, int n_rows) {
  if (is_float_type(type) || n_rows <= 0) return 0;
  return static_cast<size_t>(n_rows) * make_q8_row_layout(n_in, q8_block_for(type)).row_bytes;
}

void matmul(const WeightMatrix& w, const float* x, int n_rows, float* y, AlignedBuffer& scratch,
            ThreadPool& pool) {
  matmul_with_table(active_table(), w, x, n_rows, y, scratch, pool);
}

void matmul_with_table(const KernelTable& table, const WeightMatrix& w, const float* x, int n_rows, float* y,
                       AlignedBuffer& scratch, ThreadPool& pool) {
  if (n_rows <= 0) return;
  if (!check_weight_matrix(w).ok()) {
    fill_nan(y, static_cast<int64_t>(n_rows) * w.n_out);
    return;
  }
  MatmulArgs args;
  args.w = &w;
  args.x = x;
  args.n_rows = n_rows;
  args.y = y;
  if (!is_float_type(w.type)) {
    args.xq_layout = make_q8_row_layout(w.n_in, q8_block_for(w.type));
    args.xq = quantize_inputs(table, args.xq_layout, x, n_rows, scratch, pool);
  }
  // rows_per_task() is a multiple of 16, so packed tasks own whole row groups.
  // w passed check_weight_matrix() above, so the packed kernel only needs to exist.
  const RowsFn packed_fn = w.packed != nullptr ? packed_rows_fn(table, w.type) : nullptr;
  const RowsFn rows_fn = packed_fn != nullptr ? packed_fn : table.matmul_rows;
  const int64_t chunk = rows_per_task(w.n_out, pool.size());
  const int n_tasks = static_cast<int>((w.n_out + chunk - 1) / chunk);
  TaskRanges ranges(n_tasks, pool.size());
  pool.parallel_for(ranges.n_ranges(), [&](int range, int) {
    ranges.run(range, [&](int task) {
      const int64_t begin = task * chunk;
      const int64_t end = begin + chunk < w.n_out ? begin + chunk : w.n_out;
      rows_fn(args, begin, end);
    });
  });
}

namespace {

// Both quantise x into the same Q8 rows (a float job quantises nothing, so it has none to share).
bool shares_input(const MatmulJob& a, const MatmulJob& b) {
  return a.x == b.x && a.n_rows == b.n_rows && a.w->n_in == b.w->n_in && !is_float_type(a.w->type) &&
         !is_float_type(b.w->type) && q8_block_for(a.w->type) == q8_block_for(b.w->type);
}

bool job_usable(const MatmulJob& job) {
  return job.w != nullptr && job.n_rows > 0 && check_weight_matrix(*job.w).ok();
}

// One job input that matmul_many() quantises into scratch rows of its own.
struct InputToQuantize {
  const MatmulArgs* args = nullptr;  // x, w->n_in, n_rows and xq_layout of the job
  std::byte* dst = nullptr;          // where its n_rows Q8 rows go (args->xq points here)
  int first_row = 0;                 // its first row counted over all inputs, in order
};

// Quantises every input row into its Q8 row; the rows of all inputs spread over the pool when
// there are enough floats to repay waking it (a prefill's gathered expert rows), inline for a
// decode step's few rows. Rows are independent and each is quantised by the same code either
// way, so the bits never change.
void quantize_job_inputs(const KernelTable& table, std::span<const InputToQuantize> inputs, int n_rows,
                         int64_t n_floats, ThreadPool& pool) {
  auto quantize_row = [&](const InputToQuantize& in, int r) {
    const MatmulArgs& a = *in.args;
    table.quantize_q8_row(a.x + static_cast<int64_t>(r) * a.w->n_in, a.w->n_in, a.xq_layout.block,
                          in.dst + static_cast<size_t>(r) * a.xq_layout.row_bytes);
  };
  constexpr int64_t kInlineFloats = 1 << 16;
  if (n_floats <= kInlineFloats) {
    for (const InputToQuantize& in : inputs) {
      for (int r = 0; r < in.args->n_rows; ++r) quantize_row(in, r);
    }
    return;
  }
  pool.parallel_for(n_rows, [&](int row, int) {
    // The input holding this row: the last one whose first row is <= row.
    const InputToQuantize& in = *(std::upper_bound(inputs.begin(), inputs.end(), row,
                                                   [](int r, const InputToQuantize& i) { return r < i.first_row; }) -
                                  1);
    quantize_row(in, row - in.first_row);
  });
}

}  // namespace

size_t matmul_many_scratch_bytes(std::span<const MatmulJob> jobs) {
  size_t bytes = 0;
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (!job_usable(jobs[j]) || is_float_type(jobs[j].w->type)) continue;
    if (j > 0 && job_usable(jobs[j - 1]) && shares_input(jobs[j - 1], jobs[j])) continue;
    bytes += matmul_scratch_bytes(jobs[j].w->type, jobs[j].w->n_in, jobs[j].n_rows);
  }
  return bytes;
}

void matmul_many(std::span<const MatmulJob> jobs, AlignedBuffer& scratch, ThreadPool& pool) {
  const KernelTable& table = active_table();
  const int n_jobs = static_cast<int>(jobs.size() < kMaxMatmulJobs ? jobs.size() : kMaxMatmulJobs);
  for (size_t j = n_jobs; j < jobs.size(); ++j) {
    if (jobs[j].w != nullptr && jobs[j].n_rows > 0) fill_nan(jobs[j].y, static_cast<int64_t>(jobs[j].n_rows) * jobs[j].w->n_out);
  }
  const size_t need = matmul_many_scratch_bytes(jobs.first(static_cast<size_t>(n_jobs)));
  if (scratch.size() < need) scratch.resize(need);

  // Per job: its arguments, kernel and first task; inputs quantised once per distinct x.
  MatmulArgs args[kMaxMatmulJobs];
  RowsFn fns[kMaxMatmulJobs];
  int64_t chunks[kMaxMatmulJobs];
  int first_task[kMaxMatmulJobs + 1];
  size_t offset = 0;
  int n_tasks = 0;
  bool usable[kMaxMatmulJobs];
  InputToQuantize to_quantize[kMaxMatmulJobs];  // jobs whose x gets its own scratch rows
  int n_to_quantize = 0;
  int quantize_rows = 0;
  int64_t quantize_floats = 0;
  double pass_work = 0.0;
  for (int j = 0; j < n_jobs; ++j) {
    usable[j] = job_usable(jobs[j]);
    if (usable[j]) pass_work += static_cast<double>(jobs[j].w->n_out) * jobs[j].w->n_in * jobs[j].n_rows;
  }
  for (int j = 0; j < n_jobs; ++j) {
    const MatmulJob& job = jobs[j];
    first_task[j] = n_tasks;
    fns[j] = nullptr;
    if (!usable[j]) {
      if (job.w != nullptr && job.n_rows > 0) fill_nan(job.y, static_cast<int64_t>(job.n_rows) * job.w->n_out);
      continue;
    }
    const WeightMatrix& w = *job.w;
    args[j] = MatmulArgs{&w, job.x, nullptr, Q8RowLayout{}, job.n_rows, job.y};
    if (!is_float_type(w.type)) {
      args[j].xq_layout = make_q8_row_layout(w.n_in, q8_block_for(w.type));
      if (j > 0 && fns[j - 1] != nullptr && shares_input(jobs[j - 1], job)) {
        args[j].xq = args[j - 1].xq;
      } else {
        std::byte* dst = scratch.data() + offset;
        args[j].xq = dst;
        offset += static_cast<size_t>(job.n_rows) * args[j].xq_layout.row_bytes;
        to_quantize[n_to_quantize++] = {&args[j], dst, quantize_rows};
        quantize_rows += job.n_rows;
        quantize_floats += static_cast<int64_t>(job.n_rows) * w.n_in;
      }
    }
    const RowsFn packed_fn = w.packed != nullptr ? packed_rows_fn(table, w.type) : nullptr;
    fns[j] = packed_fn != nullptr ? packed_fn : table.matmul_rows;
    chunks[j] = rows_per_task_in_pass(w.n_out, w.n_in, job.n_rows, pass_work, pool.size());
    n_tasks += static_cast<int>((w.n_out + chunks[j] - 1) / chunks[j]);
  }
  first_task[n_jobs] = n_tasks;
  quantize_job_inputs(table, {to_quantize, static_cast<size_t>(n_to_quantize)}, quantize_rows, quantize_floats,
                      pool);
  TaskRanges ranges(n_tasks, pool.size());
  auto run_task = [&](int task) {
    // The job owning this task: the last one whose first task is <= task (jobs without
    // tasks share their successor's first task, so upper_bound skips them).
    const int lo = static_cast<int>(std::upper_bound(first_task, first_task + n_jobs, task) - first_task) - 1;
    const MatmulArgs& a = args[lo];
    const int64_t begin = (task - first_task[lo]) * chunks[lo];
    const int64_t end = begin + chunks[lo] < a.w->n_out ? begin + chunks[lo] : a.w->n_out;
    fns[lo](a, begin, end);
  };
  pool.parallel_for(ranges.n_ranges(), [&](int range, int) { ranges.run(range, run_task); });
}

void rmsnorm(const float* x, const float* weight, int n, float eps, float* out) {
  if (n <= 0) return;
  active_table().rmsnorm(x, weight, n, eps, out);
}

void layernorm(const float* x, const float* weight, int n, float eps, float* out) {
  if (n <= 0) return;
  reference::layernorm(x, weight, n, eps, out);
}

void rope(float* x, int n_heads, int pos, const RopeParams& p) {
  if (p.n_rot <= 0 || p.n_rot > p.head_dim || p.n_rot % 2 != 0) return;
  reference::rope(x, n_heads, pos, p);
}

void delta_rule(float* state, const float* q, const float* k, const float* v, float decay, float beta,
                float scale, int dk, int dv, float* out) {
  active_table().delta_rule(state, q, k, v, decay, beta, scale, dk, dv, out);
}

void delta_rule_keys(float* state, const float* q, const float* k, const float* v, const float* decay, float beta,
                     float scale, int dk, int dv, float* out) {
  active_table().delta_rule_keys(state, q, k, v, decay, beta, scale, dk, dv, out);
}

void kda_decay(const float* f, const float* bias, float rate, float bound, int n, float* decay) {
  if (n <= 0) return;
  active_table().kda_decay(f, bias, rate, bound, n, decay);
}

void kda_softplus_decay(const float* f, const float* bias, float rate, int n, float* decay) {
  if (n <= 0) return;
  active_table().kda_softplus_decay(f, bias, rate, n, decay);
}

void ssm_scan(float* state, const float* x, const float* B, const float* C, float decay, float dt, int n, int p,
              float* out) {
  active_table().ssm_scan(state, x, B, C, decay, dt, n, p, out);
}

void silu_mul(float* gate, const float* up, int n) {
  if (n <= 0) return;
  active_table().silu_mul(gate, up, n);
}

void sigmoid_mul(float* gate, const float* up, int n) {
  if (n <= 0) return;
  active_table().sigmoid_mul(gate, up, n);
}

void gelu_mul(float* gate, const float* up, int n) {
  if (n <= 0) return;
  active_table().gelu_mul(gate, up, n);
}

void swiglu_oai(float* gate, const float* up, int n) {
  if (n <= 0) return;
  active_table().swiglu_oai(gate, up, n);
}

void silu_mul_clamped(float* gate, const float* up, int n, float limit) {
  if (n <= 0) return;
  reference::silu_mul_clamped(gate, up, n, limit);
}

void dequantize_row(const WeightMatrix& w, int64_t row, float* out) {
  if (!check_weight_matrix(w).ok() || row < 0 || row >= w.n_out) return;
  const auto* src = static_cast<const std::byte*>(w.data) + static_cast<size_t>(row) * w.row_bytes;
  reference::dequantize(w.type, src, w.n_in, out);
}

bool kv_type_supported(DType type, int n) {
  switch (type) {
    case DType::kF32: case DType::kF16: return n >= 0;
    case DType::kQ8_0: return n >= 0 && n % kQK == 0;
    default: return false;
  }
}

void store_kv(const float* x, int n, DType type, void* dst) {
  if (!kv_type_supported(type, n)) return;
  active_table().store_kv(x, n, type, dst);
}

void load_kv(const void* src, int n, DType type, float* out) {
  if (!kv_type_supported(type, n)) {
    fill_nan(out, n);
    return;
  }
  active_table().load_kv(src, n, type, out);
}

Status check_attention_args(const AttentionArgs& a) {
  if (a.n_head <= 0 || a.n_head_kv <= 0 || a.n_head % a.n_head_kv != 0) {
    return Status::InvalidArgument("attention: n_head " + std::to_string(a.n_head) +
                                   " is not a positive multiple of n_head_kv " + std::to_string(a.n_head_kv));
  }
  if (a.head_dim <= 0 || !kv_type_supported(a.kv_type, a.head_dim)) {
    return Status::InvalidArgument("attention: head_dim " + std::to_string(a.head_dim) + " with K/V type " +
                                   std::string(dtype_name(a.kv_type)) + " is not supported");
  }
  if (a.block_tokens <= 0 || a.n_tokens < 0) {
    return Status::InvalidArgument("attention: block_tokens must be positive and n_tokens non-negative");
  }
  if (a.n_tokens > 0 && (a.block_k == nullptr || a.block_v == nullptr)) {
    return Status::InvalidArgument("attention: block tables are null");
  }
  if (a.n_rows < 1 || (a.row_stride_floats != 0 && a.row_stride_floats < static_cast<size_t>(a.n_head) * a.head_dim)) {
    return Status::InvalidArgument("attention: a tile needs at least one row and rows at least n_head * head_dim apart");
  }
  if (!(a.softcap >= 0.0f) || !std::isfinite(a.softcap)) {
    return Status::InvalidArgument("attention: softcap must be 0 (none) or a positive finite number");
  }
  const int row0_tokens = a.row_tokens != nullptr ? a.row_tokens[0] : a.n_tokens;
  if (a.first_token < 0 || (a.first_token > 0 && (a.n_rows != 1 || a.first_token >= row0_tokens))) {
    return Status::InvalidArgument("attention: first_token " + std::to_string(a.first_token) +
                                   " needs a single row with more tokens than that");
  }
  for (int r = 0; a.row_tokens != nullptr && r < a.n_rows; ++r) {
    if (a.row_tokens[r] < 0 || a.row_tokens[r] > a.n_tokens) {
      return Status::InvalidArgument("attention: row " + std::to_string(r) + " attends over " +
                                     std::to_string(a.row_tokens[r]) + " tokens, outside [0, n_tokens = " +
                                     std::to_string(a.n_tokens) + "]");
    }
  }
  return Status::Ok();
}

size_t attention_scratch_floats(const AttentionArgs& a) {
  // The SIMD tables, per tile of row-heads (n_rows times the query heads of one kv head,
  // padded to whole vectors): the transposed queries, a window of whole blocks
  // (kAttentionTileWindowKeys, at least one block) of converted K and V, its scores, the
  // running max and sum per row-head, and per block of the window its rescale and key count.
  // The decode path (n_rows == 1): per kv head of one walk (kAttentionDecodeMaxHeads at most)
  // queries replicated over 16 lanes and 8 output rows, and a shared window of converted K
  // rows and their scores (8 floats per key).
  // The scalar reference needs one converted K/V row and one head's block scores: less.
  const size_t group = a.n_head_kv > 0 && a.n_head >= a.n_head_kv ? a.n_head / a.n_head_kv : 1;
  const size_t padded_block = (static_cast<size_t>(a.block_tokens > 0 ? a.block_tokens : 0) + 7) / 8 * 8;
  const size_t head_dim = static_cast<size_t>(a.head_dim > 0 ? a.head_dim : 0);
  // Row-heads padded to whole 16-lane groups (the AVX-512 table's; the AVX2 table's are 8).
  const size_t row_heads = (group * static_cast<size_t>(a.n_rows > 0 ? a.n_rows : 1) + 15) / 16 * 16;
  const size_t window_max = static_cast<size_t>(kAttentionTileWindowKeys);
  const auto tile_floats = [&](size_t block) {
    const size_t window_blocks = block > 0 && block < window_max ? window_max / block : 1;
    const size_t padded_window = (window_blocks * block + 7) / 8 * 8;
    return head_dim * row_heads + 2 * head_dim * padded_window + padded_window * row_heads +
           (2 + 2 * window_blocks) * row_heads + 2 * head_dim + 16;
  };
  // Enough for any block size up to a.block_tokens (model.cc sizes once for its largest): a
  // smaller block can make a longer window.
  const size_t block = static_cast<size_t>(a.block_tokens > 0 ? a.block_tokens : 0);
  size_t tile = tile_floats(block);
  for (size_t b = 1; b < block && b < window_max; ++b) tile = std::max(tile, tile_floats(b));
  const size_t window_keys = static_cast<size_t>(kAttentionDecodeWindowKeys);
  const size_t window = padded_block > window_keys ? padded_block : window_keys;
  const size_t walked = static_cast<size_t>(std::clamp(a.n_head_kv, 1, kAttentionDecodeMaxHeads));
  const size_t decode = walked * 24 * head_dim + window * (head_dim + 8);
  return tile > decode ? tile : decode;
}

void attention_kv_heads(const AttentionArgs& a, const float* q, float* out, float* scratch, int first_kv_head,
                        int n_kv_heads) {
  if (!check_attention_args(a).ok() || first_kv_head < 0 || n_kv_heads <= 0 ||
      first_kv_head + n_kv_heads > a.n_head_kv) {
    return;
  }
  active_table().attention(a, q, out, scratch, first_kv_head, n_kv_heads);
}

void attention(const AttentionArgs& a, const float* q, float* out, float* scratch) {
  attention_kv_heads(a, q, out, scratch, 0, a.n_head_kv);
}

int argmax(const float* x, int n) {
  if (n <= 0) return -1;
  return active_table().argmax(x, n);
}

const char* active_isa() { return active_table().name; }

}  // namespace strata::kernels
