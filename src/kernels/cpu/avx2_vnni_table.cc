// The AVX2 + AVX-VNNI kernel table (avx2_vnni.h): the AVX2 table's entries (avx2_table.cc)
// but the packed Q8_0, Q4_0, Q5_0, Q4_K, Q5_K, Q6_K, Q3_K, Q2_K, IQ4_XS, IQ4_NL and MXFP4
// kernels and the TQ1_0 / TQ2_0 matmuls (matmul_rows).
// Constant data only; Avx2VnniTable.IsTheAvx2TableButTheVnniKernels
// (avx2_vnni_table_test.cc) keeps the two lists in step.
#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_vnni.h"
#include "kernels/reference/reference.h"

namespace strata::kernels::cpu {

constinit const KernelTable kAvx2VnniKernels{
    .name = "avx2vnni",
    .quantize_q8_row = avx2::quantize_q8_row,
    .matmul_rows = avx2vnni::matmul_rows,  // AVX2's but TQ1_0 / TQ2_0
    .matmul_packed_q8_0_rows = avx2vnni::matmul_packed_q8_0,
    .matmul_packed_q4_0_rows = avx2vnni::matmul_packed_q4_0,
    .matmul_packed_q5_0_rows = avx2vnni::matmul_packed_q5_0,
    .matmul_packed_q4_k_rows = avx2vnni::matmul_packed_q4_k,
    .matmul_packed_q5_k_rows = avx2vnni::matmul_packed_q5_k,
    .matmul_packed_q6_k_rows = avx2vnni::matmul_packed_q6_k,
    .matmul_packed_iq4_xs_rows = avx2vnni::matmul_packed_iq4_xs,
    .matmul_packed_iq4_nl_rows = avx2vnni::matmul_packed_iq4_nl,
    .matmul_packed_mxfp4_rows = avx2vnni::matmul_packed_mxfp4,
    .matmul_packed_q3_k_rows = avx2vnni::matmul_packed_q3_k,
    .matmul_packed_q2_k_rows = avx2vnni::matmul_packed_q2_k,
    .rmsnorm = avx2::rmsnorm,
    .silu_mul = avx2::silu_mul,
    .gelu_mul = avx2::gelu_mul,
    .swiglu_oai = avx2::swiglu_oai,
    .store_kv = avx2::store_kv,
    .load_kv = avx2::load_kv,
    .attention = avx2::attention,
    .argmax = reference::argmax,
    .delta_rule = avx2::delta_rule,
    .ssm_scan = avx2::ssm_scan,
    .delta_rule_keys = avx2::delta_rule_keys,
    .kda_decay = avx2::kda_decay,
    .kda_softplus_decay = avx2::kda_softplus_decay,
    .sigmoid_mul = avx2::sigmoid_mul,
};

}  // namespace strata::kernels::cpu
