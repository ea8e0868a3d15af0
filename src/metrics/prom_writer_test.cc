#include "metrics/prom_writer.h"

#include <gtest/gtest.h>

#include <array>

#include "metrics/histogram.h"

namespace strata {
namespace {

TEST(PromWriter, FamilyWithoutSamplesLeavesNoHeader) {
  std::string out;
  PromWriter w(&out);
  w.family("a_total", "counter", "Nothing here.");
  w.family("b", "gauge", "Something.");
  w.sample(2.0);
  EXPECT_EQ(out, "# HELP b Something.\n# TYPE b gauge\nb 2.0\n");
}

TEST(PromWriter, HeaderOnceThenOneLinePerSample) {
  std::string out;
  PromWriter w(&out);
  const std::array<PromLabel, 1> common = {{{"model_name", "m"}}};
  w.family("x_total", "counter", "X.", common);
  const std::array<PromLabel, 1> a = {{{"k", "a"}}}, b = {{{"k", "b"}}};
  w.sample(a, 1);
  w.sample(b, 0.5);
  EXPECT_EQ(out,
            "# HELP x_total X.\n# TYPE x_total counter\n"
            "x_total{model_name=\"m\",k=\"a\"} 1.0\n"
            "x_total{model_name=\"m\",k=\"b\"} 0.5\n");
}

TEST(PromWriter, EscapesLabelValuesAndHelp) {
  std::string out;
  PromWriter w(&out);
  const std::array<PromLabel, 1> l = {{{"model_name", "a\\b\"c\nd"}}};
  w.family("g", "gauge", "back\\slash\nnewline \"quoted\"", l);
  w.sample(1);
  EXPECT_EQ(out,
            "# HELP g back\\\\slash\\nnewline \"quoted\"\n# TYPE g gauge\n"
            "g{model_name=\"a\\\\b\\\"c\\nd\"} 1.0\n");
}

TEST(PromWriter, HistogramIsCumulativeWithLeLastAndInfEqualToCount) {
  std::string out;
  PromWriter w(&out);
  Histogram h({0.5, 1e6});
  h.observe(0.25);
  h.observe(0.5);
  h.observe(7);
  h.observe(2e6);
  const std::array<PromLabel, 1> common = {{{"engine", "0"}}};
  w.family("h_seconds", "histogram", "H.", common);
  w.histogram(h);
  EXPECT_EQ(out,
            "# HELP h_seconds H.\n# TYPE h_seconds histogram\n"
            "h_seconds_bucket{engine=\"0\",le=\"0.5\"} 2.0\n"
            "h_seconds_bucket{engine=\"0\",le=\"1e+06\"} 3.0\n"
            "h_seconds_bucket{engine=\"0\",le=\"+Inf\"} 4.0\n"
            "h_seconds_count{engine=\"0\"} 4.0\n"
            "h_seconds_sum{engine=\"0\"} 2.00000775e+06\n");
}

}  // namespace
}  // namespace strata
