// The AVX2 kernel table (constant data; see avx2.h).
#include "kernels/cpu/avx2.h"
#include "kernels/reference/reference.h"

namespace strata::kernels::cpu {

constinit const KernelTable kAvx2Kernels{
    .name = "avx2",
    .quantize_q8_row = reference::quantize_q8_row,
    .matmul_rows = avx2::matmul_rows,
    .rmsnorm = reference::rmsnorm,
    .silu_mul = reference::silu_mul,
    .store_kv = reference::store_kv,
    .load_kv = reference::load_kv,
    .attention = reference::attention,
    .argmax = reference::argmax,
};

}  // namespace strata::kernels::cpu
