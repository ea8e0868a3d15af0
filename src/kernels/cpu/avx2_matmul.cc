// AVX2 matmul entry: routes a chunk of output rows to the kernel for the weight type.
// Types without a SIMD kernel run the scalar reference rows: one output at a time, so
// batch invariance holds there too.
#include "kernels/cpu/avx2.h"
#include "kernels/reference/reference.h"

namespace strata::kernels::cpu::STRATA_SIMD {

void matmul_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  switch (args.w->type) {
    case DType::kF32: case DType::kF16: case DType::kBF16: matmul_float(args, o_begin, o_end); return;
    case DType::kQ8_0: matmul_q8_0(args, o_begin, o_end); return;
    case DType::kQ4_0: matmul_q4_0(args, o_begin, o_end); return;
    case DType::kQ5_0: matmul_q5_0(args, o_begin, o_end); return;
    case DType::kQ4_K: matmul_q4_k(args, o_begin, o_end); return;
    case DType::kQ5_K: matmul_q5_k(args, o_begin, o_end); return;
    case DType::kQ6_K: matmul_q6_k(args, o_begin, o_end); return;
    case DType::kQ4_1: matmul_q4_1(args, o_begin, o_end); return;
    case DType::kQ5_1: matmul_q5_1(args, o_begin, o_end); return;
    case DType::kQ2_K: matmul_q2_k(args, o_begin, o_end); return;
    case DType::kQ3_K: matmul_q3_k(args, o_begin, o_end); return;
    case DType::kIQ4_NL: matmul_iq4_nl(args, o_begin, o_end); return;
    case DType::kMXFP4: matmul_mxfp4(args, o_begin, o_end); return;
    case DType::kIQ4_XS: matmul_iq4_xs(args, o_begin, o_end); return;
    case DType::kIQ3_S: matmul_iq3_s(args, o_begin, o_end); return;
    case DType::kIQ3_XXS: matmul_iq3_xxs(args, o_begin, o_end); return;
    case DType::kIQ2_XXS: matmul_iq2_xxs(args, o_begin, o_end); return;
    case DType::kIQ2_XS: matmul_iq2_xs(args, o_begin, o_end); return;
    case DType::kIQ2_S: matmul_iq2_s(args, o_begin, o_end); return;
    case DType::kIQ1_S: matmul_iq1_s(args, o_begin, o_end); return;
    case DType::kIQ1_M: matmul_iq1_m(args, o_begin, o_end); return;
    case DType::kTQ1_0: matmul_tq1_0(args, o_begin, o_end); return;
    case DType::kTQ2_0: matmul_tq2_0(args, o_begin, o_end); return;
    default: reference::matmul_rows(args, o_begin, o_end); return;
  }
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
