// The SIMD kernel table of this build (constant data; see avx2.h): kAvx2Kernels, or
// kAvx512Kernels when compiled with STRATA_KERNELS_AVX512.
#include "kernels/cpu/avx2.h"
#include "kernels/reference/reference.h"

namespace strata::kernels::cpu {

#if defined(STRATA_KERNELS_AVX512)
constinit const KernelTable kAvx512Kernels{
    .name = "avx512",
#else
constinit const KernelTable kAvx2Kernels{
    .name = "avx2",
#endif
    .quantize_q8_row = STRATA_SIMD::quantize_q8_row,
    .matmul_rows = STRATA_SIMD::matmul_rows,
    .matmul_packed_q8_0_rows = STRATA_SIMD::matmul_packed_q8_0,
    .matmul_packed_q4_0_rows = STRATA_SIMD::matmul_packed_q4_0,
    .matmul_packed_q5_0_rows = STRATA_SIMD::matmul_packed_q5_0,
    .matmul_packed_q4_k_rows = STRATA_SIMD::matmul_packed_q4_k,
    .matmul_packed_q5_k_rows = STRATA_SIMD::matmul_packed_q5_k,
    .matmul_packed_q6_k_rows = STRATA_SIMD::matmul_packed_q6_k,
    .matmul_packed_iq4_xs_rows = STRATA_SIMD::matmul_packed_iq4_xs,
    .matmul_packed_iq4_nl_rows = STRATA_SIMD::matmul_packed_iq4_nl,
    .matmul_packed_mxfp4_rows = STRATA_SIMD::matmul_packed_mxfp4,
    .matmul_packed_q3_k_rows = STRATA_SIMD::matmul_packed_q3_k,
    .matmul_packed_q2_k_rows = STRATA_SIMD::matmul_packed_q2_k,
    .rmsnorm = STRATA_SIMD::rmsnorm,
    .silu_mul = STRATA_SIMD::silu_mul,
    .gelu_mul = STRATA_SIMD::gelu_mul,
    .swiglu_oai = STRATA_SIMD::swiglu_oai,
    .store_kv = STRATA_SIMD::store_kv,
    .load_kv = STRATA_SIMD::load_kv,
    .attention = STRATA_SIMD::attention,
    .argmax = reference::argmax,
    .delta_rule = STRATA_SIMD::delta_rule,
    .ssm_scan = STRATA_SIMD::ssm_scan,
    .delta_rule_keys = STRATA_SIMD::delta_rule_keys,
    .kda_decay = STRATA_SIMD::kda_decay,
    .kda_softplus_decay = STRATA_SIMD::kda_softplus_decay,
    .sigmoid_mul = STRATA_SIMD::sigmoid_mul,
};

}  // namespace strata::kernels::cpu
