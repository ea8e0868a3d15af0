// Run-time choice of kernel table. The SIMD tables are constant data defined in files
// compiled with their ISA flags; nothing in those files runs until the CPU check here
// has passed.
#include "kernels/kernel_table.h"

#include <cpuid.h>

#include <cstdlib>
#include <cstring>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_vnni.h"

namespace strata::kernels {

Q8RowLayout make_q8_row_layout(int64_t n_in, int block) {
  auto align32 = [](size_t n) { return (n + 31) / 32 * 32; };
  Q8RowLayout layout;
  layout.n_in = n_in;
  layout.block = block;
  layout.d_offset = align32(static_cast<size_t>(n_in));
  layout.sum_offset = layout.d_offset + align32(static_cast<size_t>(n_in / block) * sizeof(float));
  layout.row_bytes = layout.sum_offset + align32(static_cast<size_t>(n_in / 16) * sizeof(int16_t));
  return layout;
}

int q8_block_for(DType weight_type) {
  // Super-block types (the K-quants and the 256-element i-quants) get one activation scale
  // per super-block, so a kernel can sum its sub-block products as integers.
  return dtype_info(weight_type).block_size == static_cast<uint32_t>(kQKK) ? kQKK : kQK;
}

bool matmul_has_simd_kernel(DType type) {
  // Keep in step with the cases of cpu/avx2_matmul.cc.
  switch (type) {
    case DType::kF32: case DType::kF16: case DType::kBF16: case DType::kQ8_0: case DType::kQ4_0:
    case DType::kQ5_0: case DType::kQ4_K: case DType::kQ5_K: case DType::kQ6_K: case DType::kIQ4_NL:
    case DType::kIQ4_XS: case DType::kQ3_K: case DType::kQ2_K: case DType::kQ4_1: case DType::kQ5_1:
    case DType::kIQ3_S: case DType::kIQ3_XXS: case DType::kIQ2_XXS: case DType::kIQ2_XS: case DType::kIQ2_S:
    case DType::kIQ1_S: case DType::kIQ1_M: case DType::kMXFP4: case DType::kTQ1_0: case DType::kTQ2_0:
      return true;
    default:
      return false;
  }
}

size_t kv_head_bytes(DType type, int head_dim) {
  return dtype_row_bytes(type, static_cast<uint64_t>(head_dim)).value_or(0);
}

const KernelTable* avx2_table() {
  // F16C is CPUID leaf 1, ECX bit 29, read directly: clang 14's __builtin_cpu_supports has no
  // name for it.
  static const bool supported = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx >> 29 & 1) != 0;
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c;
  }();
  return supported ? &cpu::kAvx2Kernels : nullptr;
}

const KernelTable* avx2_vnni_table() {
  // CPUID leaf 7 sub-leaf 1, EAX bit 4: AVX-VNNI (GCC 12's __builtin_cpu_supports has no
  // name for it). Its VEX encoding uses the YMM state avx2_table() already found saved.
  static const bool supported = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return avx2_table() != nullptr && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) != 0 && (eax >> 4 & 1) != 0;
  }();
  return supported ? &cpu::kAvx2VnniKernels : nullptr;
}

const KernelTable* avx512_table() {
  // __builtin_cpu_supports also checks that the OS saves the AVX-512 register state.
  static const bool supported = avx2_table() != nullptr && __builtin_cpu_supports("avx512f") &&
                                __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                                __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vnni");
  return supported ? &cpu::kAvx512Kernels : nullptr;
}

namespace {

const KernelTable& choose_table() {
  // STRATA_KERNELS=scalar|avx2|avx2vnni caps the instruction set (to debug a SIMD suspicion,
  // or to compare tables in a benchmark); a table the CPU lacks is never chosen.
  const char* forced = std::getenv("STRATA_KERNELS");
  if (forced != nullptr && std::strcmp(forced, "scalar") == 0) return reference_table();
  const bool cap_avx2 = forced != nullptr && std::strcmp(forced, "avx2") == 0;
  const bool cap_vnni = forced != nullptr && std::strcmp(forced, "avx2vnni") == 0;
  if (const KernelTable* t = avx512_table(); t != nullptr && !cap_avx2 && !cap_vnni) return *t;
  if (const KernelTable* t = avx2_vnni_table(); t != nullptr && !cap_avx2) return *t;
  if (const KernelTable* t = avx2_table()) return *t;
  return reference_table();
}

}  // namespace

const KernelTable& active_table() {
  static const KernelTable& table = choose_table();
  return table;
}

}  // namespace strata::kernels
