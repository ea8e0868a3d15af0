#include "metrics/prom_number.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace strata {
namespace {

// Expected strings are what prometheus_client's floatToGoString (Python) prints.
TEST(PromFloat, MatchesPythonPrometheusClient) {
  const struct {
    double value;
    const char* text;
  } cases[] = {
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1.0, "1.0"},
      {0.001, "0.001"},
      {0.005, "0.005"},
      {2.5, "2.5"},
      {2560.0, "2560.0"},
      {100000.0, "100000.0"},
      {1e6, "1e+06"},
      {1234567.5, "1.2345675e+06"},
      {2.5e7, "2.5e+07"},
      {1e10, "1e+010"},
      {25769803776.0, "2.5769803776e+010"},
      {1e15, "1e+015"},
      {1e16, "1e+16"},
      {1.5e16, "1.5e+16"},
      {1e-4, "0.0001"},
      {1e-5, "1e-05"},
      {1.2345e-7, "1.2345e-07"},
      {0.1 + 0.2, "0.30000000000000004"},
      {-3.25, "-3.25"},
      {-1e6, "-1000000.0"},
      {123456.0, "123456.0"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {1.0 / 3.0, "0.3333333333333333"},
      {9007199254740992.0, "9.007199254740992e+015"},
      {7680.0, "7680.0"},
      {std::numeric_limits<double>::infinity(), "+Inf"},
      {-std::numeric_limits<double>::infinity(), "-Inf"},
      {std::nan(""), "NaN"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(prom_float(c.value), c.text) << "value " << c.value;
  }
}

TEST(PromFloat, PythonReprKeepsSixteenDigitIntegersFixed) {
  std::string s;
  append_python_float_repr(&s, 1e15);
  EXPECT_EQ(s, "1000000000000000.0");
  s.clear();
  append_python_float_repr(&s, 1e16);
  EXPECT_EQ(s, "1e+16");
}

TEST(PromFloat, AppendsAfterExistingText) {
  std::string s = "x ";
  append_prom_float(&s, 1e6);
  EXPECT_EQ(s, "x 1e+06");
}

}  // namespace
}  // namespace strata
