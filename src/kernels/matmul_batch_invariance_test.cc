// The batch-invariance contract of matmul: a row's output bits do not depend on the other
// rows in the call, its position, the batch size or the thread count. Checked for every
// weight type and every kernel table this CPU can run.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/kernel_table.h"
#include "kernels/table_list.h"
#include "kernels/test_weights.h"

namespace strata::kernels {
namespace {

using testing::TestWeights;

struct InvarianceCase {
  const KernelTable* table;
  DType type;
  int64_t n_in;
};

std::string invariance_case_name(const ::testing::TestParamInfo<InvarianceCase>& info) {
  return std::string(info.param.table->name) + "_" + std::string(dtype_name(info.param.type)) + "_" +
         std::to_string(info.param.n_in);
}

std::vector<InvarianceCase> invariance_cases() {
  const std::vector<const KernelTable*> tables = testing::runnable_tables();
  std::vector<InvarianceCase> cases;
  for (const KernelTable* t : tables) {
    for (DType type : testing::matmul_types()) {
      cases.push_back({t, type, 512});
      if (type == DType::kF32 || type == DType::kF16 || type == DType::kBF16) cases.push_back({t, type, 172});
      if (type == DType::kQ8_0 || type == DType::kQ4_0 || type == DType::kQ5_0) cases.push_back({t, type, 96});
    }
  }
  return cases;
}

class MatmulBatchInvariance : public ::testing::TestWithParam<InvarianceCase> {};

constexpr int kInvarianceRows = 17;
// Not a multiple of any tile width, and more than one parallel task's worth of rows.
constexpr int64_t kInvarianceOut = 75;

TEST_P(MatmulBatchInvariance, EachRowMatchesRunningItAlone) {
  const InvarianceCase& c = GetParam();
  TestWeights weights(c.type, kInvarianceOut, c.n_in, 7);
  const WeightMatrix& w = weights.matrix();
  const std::vector<float> x = testing::random_floats(kInvarianceRows * c.n_in, 11);

  ThreadPool single(1);
  AlignedBuffer scratch;
  std::vector<float> alone(kInvarianceRows * kInvarianceOut);
  for (int r = 0; r < kInvarianceRows; ++r) {
    matmul_with_table(*c.table, w, x.data() + r * c.n_in, 1, alone.data() + r * kInvarianceOut, scratch, single);
  }

  std::vector<std::unique_ptr<ThreadPool>> pools;
  for (int n = 1; n <= 3; ++n) pools.push_back(std::make_unique<ThreadPool>(n));
  std::vector<float> batch_x(kInvarianceRows * c.n_in), batch_y(kInvarianceRows * kInvarianceOut);
  for (int n_rows = 1; n_rows <= kInvarianceRows; ++n_rows) {
    // A different selection and order of source rows for each batch size.
    std::vector<int> src(n_rows);
    for (int i = 0; i < n_rows; ++i) src[i] = (n_rows * 5 + i * 7) % kInvarianceRows;
    for (int i = 0; i < n_rows; ++i) {
      std::memcpy(&batch_x[i * c.n_in], &x[src[i] * c.n_in], c.n_in * sizeof(float));
    }
    ThreadPool& pool = *pools[n_rows % 3];
    matmul_with_table(*c.table, w, batch_x.data(), n_rows, batch_y.data(), scratch, pool);
    for (int i = 0; i < n_rows; ++i) {
      ASSERT_EQ(0, std::memcmp(&batch_y[i * kInvarianceOut], &alone[src[i] * kInvarianceOut],
                               kInvarianceOut * sizeof(float)))
          << "row " << i << " (source " << src[i] << ") of a batch of " << n_rows << " on "
          << pool.size() << " threads differs from the row alone";
    }
  }
}

TEST_P(MatmulBatchInvariance, ThreadCountDoesNotChangeBits) {
  const InvarianceCase& c = GetParam();
  TestWeights weights(c.type, kInvarianceOut, c.n_in, 3);
  const std::vector<float> x = testing::random_floats(8 * c.n_in, 5);
  AlignedBuffer scratch;
  std::vector<float> y1(8 * kInvarianceOut), yn(8 * kInvarianceOut);
  ThreadPool single(1);
  matmul_with_table(*c.table, weights.matrix(), x.data(), 8, y1.data(), scratch, single);
  for (int n = 2; n <= 3; ++n) {
    ThreadPool pool(n);
    matmul_with_table(*c.table, weights.matrix(), x.data(), 8, yn.data(), scratch, pool);
    EXPECT_EQ(0, std::memcmp(y1.data(), yn.data(), y1.size() * sizeof(float))) << n << " threads";
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, MatmulBatchInvariance, ::testing::ValuesIn(invariance_cases()),
                         invariance_case_name);

}  // namespace
}  // namespace strata::kernels
