// The AVX2 + AVX-VNNI table (cpu/avx2_vnni.h) against the AVX2 table: the same entries but
// the packed Q8_0, Q4_K, Q5_K and Q6_K kernels (whose bits the packed tests check against the
// oracles).
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/cpu/avx2_vnni.h"
#include "kernels/kernel_table.h"

namespace strata::kernels {
namespace {

TEST(Avx2VnniTable, IsTheAvx2TableButTheVnniKernels) {
  const KernelTable* vnni = avx2_vnni_table();
  if (vnni == nullptr) GTEST_SKIP() << "no AVX-VNNI on this CPU";
  ASSERT_NE(avx2_table(), nullptr);
  EXPECT_STREQ(vnni->name, "avx2vnni");
  EXPECT_NE(vnni->matmul_packed_q8_0_rows, avx2_table()->matmul_packed_q8_0_rows);
  EXPECT_NE(vnni->matmul_packed_q4_k_rows, avx2_table()->matmul_packed_q4_k_rows);
  EXPECT_NE(vnni->matmul_packed_q5_k_rows, avx2_table()->matmul_packed_q5_k_rows);
  EXPECT_NE(vnni->matmul_packed_q6_k_rows, avx2_table()->matmul_packed_q6_k_rows);
  KernelTable patched = *vnni;
  patched.name = avx2_table()->name;
  patched.matmul_packed_q8_0_rows = avx2_table()->matmul_packed_q8_0_rows;
  patched.matmul_packed_q4_k_rows = avx2_table()->matmul_packed_q4_k_rows;
  patched.matmul_packed_q5_k_rows = avx2_table()->matmul_packed_q5_k_rows;
  patched.matmul_packed_q6_k_rows = avx2_table()->matmul_packed_q6_k_rows;
  EXPECT_EQ(0, std::memcmp(&patched, avx2_table(), sizeof patched));
}

}  // namespace
}  // namespace strata::kernels
