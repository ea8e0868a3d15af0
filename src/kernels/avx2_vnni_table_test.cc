// The AVX2 + AVX-VNNI table (cpu/avx2_vnni.h) against the AVX2 table: the same entries but
// the packed Q8_0, Q4_0, Q5_0, Q4_K, Q5_K, Q6_K, Q3_K, Q2_K, IQ4_XS, IQ4_NL and MXFP4 kernels and
// matmul_rows, which runs TQ1_0 / TQ2_0 with AVX-VNNI (whose bits the packed tests and
// matmul_tq_test.cc check against the oracles on every table this CPU runs).
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/cpu/avx2_vnni.h"
#include "kernels/kernel_table.h"
#include "kernels/packed_layouts.h"

namespace strata::kernels {
namespace {

TEST(Avx2VnniTable, IsTheAvx2TableButTheVnniKernels) {
  const KernelTable* vnni = avx2_vnni_table();
  if (vnni == nullptr) GTEST_SKIP() << "no AVX-VNNI on this CPU";
  ASSERT_NE(avx2_table(), nullptr);
  EXPECT_STREQ(vnni->name, "avx2vnni");
  constexpr PackedRowsFn KernelTable::*kVnniKernels[] = {
      &KernelTable::matmul_packed_q8_0_rows,   &KernelTable::matmul_packed_q4_0_rows,
      &KernelTable::matmul_packed_q5_0_rows,   &KernelTable::matmul_packed_q4_k_rows,
      &KernelTable::matmul_packed_q5_k_rows,   &KernelTable::matmul_packed_q6_k_rows,
      &KernelTable::matmul_packed_iq4_xs_rows, &KernelTable::matmul_packed_iq4_nl_rows,
      &KernelTable::matmul_packed_q3_k_rows,   &KernelTable::matmul_packed_q2_k_rows,
      &KernelTable::matmul_packed_mxfp4_rows,  &KernelTable::matmul_rows,  // TQ1_0 / TQ2_0
  };
  KernelTable patched = *vnni;
  patched.name = avx2_table()->name;
  for (PackedRowsFn KernelTable::*kernel : kVnniKernels) {
    EXPECT_NE(vnni->*kernel, avx2_table()->*kernel);
    patched.*kernel = avx2_table()->*kernel;
  }
  EXPECT_EQ(0, std::memcmp(&patched, avx2_table(), sizeof patched));
}

}  // namespace
}  // namespace strata::kernels
