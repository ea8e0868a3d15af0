// The AVX2 + AVX-VNNI table (cpu/avx2_vnni.h) against the AVX2 table: the same entries but
// the packed Q8_0 kernel (whose bits packed_matmul_test.cc checks against the oracle), and
// the table active_table() picks under STRATA_KERNELS=avx2 is never it.
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/cpu/avx2_vnni.h"
#include "kernels/kernel_table.h"

namespace strata::kernels {
namespace {

TEST(Avx2VnniTable, IsTheAvx2TableButPackedQ8_0) {
  const KernelTable* vnni = avx2_vnni_table();
  if (vnni == nullptr) GTEST_SKIP() << "no AVX-VNNI on this CPU";
  ASSERT_NE(avx2_table(), nullptr);
  EXPECT_STREQ(vnni->name, "avx2vnni");
  EXPECT_NE(vnni->matmul_packed_q8_0_rows, avx2_table()->matmul_packed_q8_0_rows);
  KernelTable patched = *vnni;
  patched.name = avx2_table()->name;
  patched.matmul_packed_q8_0_rows = avx2_table()->matmul_packed_q8_0_rows;
  EXPECT_EQ(0, std::memcmp(&patched, avx2_table(), sizeof patched));
}

}  // namespace
}  // namespace strata::kernels
