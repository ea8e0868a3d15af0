#include "kernels/packed_layouts.h"

#include "kernels/packed_iq4nl.h"
#include "kernels/packed_iq4xs.h"
#include "kernels/packed_q2k.h"
#include "kernels/packed_q3k.h"
#include "kernels/packed_q4_0.h"
#include "kernels/packed_q5_0.h"
#include "kernels/packed_q4k.h"
#include "kernels/packed_q6k.h"
#include "kernels/packed_q8.h"

namespace strata::kernels {

namespace {

constexpr PackedLayout kLayouts[] = {
    {DType::kQ8_0, kQK, packed_q8_0_bytes, pack_q8_0, &KernelTable::matmul_packed_q8_0_rows,
     reference::matmul_packed_q8_0_rows},
    {DType::kQ4_0, kQK, packed_q4_0_bytes, pack_q4_0, &KernelTable::matmul_packed_q4_0_rows,
     reference::matmul_packed_q4_0_rows},
    {DType::kQ5_0, kQK, packed_q5_0_bytes, pack_q5_0, &KernelTable::matmul_packed_q5_0_rows,
     reference::matmul_packed_q5_0_rows},
    {DType::kQ4_K, kQKK, packed_q4_k_bytes, pack_q4_k, &KernelTable::matmul_packed_q4_k_rows,
     reference::matmul_packed_q4_k_rows},
    {DType::kQ5_K, kQKK, packed_q5_k_bytes, pack_q5_k, &KernelTable::matmul_packed_q5_k_rows,
     reference::matmul_packed_q5_k_rows},
    {DType::kQ6_K, kQKK, packed_q6_k_bytes, pack_q6_k, &KernelTable::matmul_packed_q6_k_rows,
     reference::matmul_packed_q6_k_rows},
    {DType::kQ3_K, kQKK, packed_q3_k_bytes, pack_q3_k, &KernelTable::matmul_packed_q3_k_rows,
     reference::matmul_packed_q3_k_rows},
    {DType::kQ2_K, kQKK, packed_q2_k_bytes, pack_q2_k, &KernelTable::matmul_packed_q2_k_rows,
     reference::matmul_packed_q2_k_rows},
    {DType::kIQ4_XS, kQKK, packed_iq4_xs_bytes, pack_iq4_xs, &KernelTable::matmul_packed_iq4_xs_rows,
     reference::matmul_packed_iq4_xs_rows},
    {DType::kIQ4_NL, kQK, packed_iq4_nl_bytes, pack_iq4_nl, &KernelTable::matmul_packed_iq4_nl_rows,
     reference::matmul_packed_iq4_nl_rows},
    {DType::kMXFP4, kQK, packed_mxfp4_bytes, pack_mxfp4, &KernelTable::matmul_packed_mxfp4_rows,
     reference::matmul_packed_mxfp4_rows},
};

}  // namespace

std::span<const PackedLayout> packed_layouts() { return kLayouts; }

const PackedLayout* packed_layout(DType type) {
  for (const PackedLayout& l : kLayouts) {
    if (l.type == type) return &l;
  }
  return nullptr;
}

}  // namespace strata::kernels
