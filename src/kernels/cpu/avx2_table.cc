// The AVX2 kernel table (constant data; see avx2.h).
#include "kernels/cpu/avx2.h"
#include "kernels/reference/reference.h"

namespace strata::kernels::cpu {

constinit const KernelTable kAvx2Kernels{
    .name = "avx2",
    .quantize_q8_row = avx2::quantize_q8_row,
    .matmul_rows = avx2::matmul_rows,
    .rmsnorm = avx2::rmsnorm,
    .silu_mul = avx2::silu_mul,
    .store_kv = avx2::store_kv,
    .load_kv = avx2::load_kv,
    .attention = avx2::attention,
    .argmax = reference::argmax,
};

}  // namespace strata::kernels::cpu
