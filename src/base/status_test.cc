#include "base/status.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

Result<int> parse_positive(int v) {
  if (v <= 0) return Status::InvalidArgument("value " + std::to_string(v) + " must be > 0");
  return v;
}

Result<int> doubled(int v) {
  STRATA_ASSIGN_OR_RETURN(int x, parse_positive(v));
  return 2 * x;
}

TEST(Status, ErrorCarriesCodeAndMessage) {
  Status s = Status::Corrupt("f.gguf: offset 8: bad magic");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kCorrupt);
  EXPECT_EQ(s.ToString(), "corrupt: f.gguf: offset 8: bad magic");
}

TEST(Result, AssignOrReturnPropagatesErrors) {
  EXPECT_EQ(doubled(4).value(), 8);
  Result<int> bad = doubled(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("-1"), std::string::npos);
}

}  // namespace
}  // namespace strata
