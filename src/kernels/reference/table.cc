// The scalar kernel table: the fallback on CPUs without AVX2 and the test oracle.
#include "kernels/reference/reference.h"

namespace strata::kernels {

const KernelTable& reference_table() {
  static const KernelTable table{
      .name = "scalar",
      .quantize_q8_row = reference::quantize_q8_row,
      .matmul_rows = reference::matmul_rows,
      .matmul_packed_q8_0_rows = nullptr,  // the scalar path packs nothing
      .matmul_packed_q4_0_rows = nullptr,
      .matmul_packed_q5_0_rows = nullptr,
      .matmul_packed_q4_k_rows = nullptr,
      .matmul_packed_q5_k_rows = nullptr,
      .matmul_packed_q6_k_rows = nullptr,
      .matmul_packed_iq4_xs_rows = nullptr,
      .matmul_packed_iq4_nl_rows = nullptr,
      .matmul_packed_mxfp4_rows = nullptr,
      .matmul_packed_q3_k_rows = nullptr,
      .matmul_packed_q2_k_rows = nullptr,
      .rmsnorm = reference::rmsnorm,
      .silu_mul = reference::silu_mul,
      .gelu_mul = reference::gelu_mul,
      .swiglu_oai = reference::swiglu_oai,
      .store_kv = reference::store_kv,
      .load_kv = reference::load_kv,
      .attention = reference::attention,
      .argmax = reference::argmax,
      .delta_rule = reference::delta_rule,
      .ssm_scan = reference::ssm_scan,
      .delta_rule_keys = reference::delta_rule_keys,
      .kda_decay = reference::kda_decay,
      .kda_softplus_decay = reference::kda_softplus_decay,
      .sigmoid_mul = reference::sigmoid_mul,
  };
  return table;
}

}  // namespace strata::kernels
