#include "metrics/metrics_format.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

TEST(MetricsFormat, PrometheusScraperGetsText) {
  // Prometheus 2.x's Accept header.
  EXPECT_EQ(choose_metrics_format("application/openmetrics-text;version=1.0.0,application/"
                                  "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
                                  "q=0.5,*/*;q=0.1",
                                  ""),
            MetricsFormat::kPrometheus);
  EXPECT_EQ(choose_metrics_format("text/plain", ""), MetricsFormat::kPrometheus);
  EXPECT_EQ(choose_metrics_format("Text/Plain; version=0.0.4", ""), MetricsFormat::kPrometheus);
}

TEST(MetricsFormat, BrowsersCurlAndPagesGetJson) {
  EXPECT_EQ(choose_metrics_format(
                "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8", ""),
            MetricsFormat::kJson);
  EXPECT_EQ(choose_metrics_format("*/*", ""), MetricsFormat::kJson);
  EXPECT_EQ(choose_metrics_format("", ""), MetricsFormat::kJson);
  EXPECT_EQ(choose_metrics_format("application/json", ""), MetricsFormat::kJson);
}

TEST(MetricsFormat, RefusedTextPlainIsNotChosen) {
  EXPECT_EQ(choose_metrics_format("text/plain;q=0, application/json", ""), MetricsFormat::kJson);
  EXPECT_EQ(choose_metrics_format("text/plain; q=0.0", ""), MetricsFormat::kJson);
}

TEST(MetricsFormat, QueryParameterOverridesAccept) {
  EXPECT_EQ(choose_metrics_format("*/*", "prometheus"), MetricsFormat::kPrometheus);
  EXPECT_EQ(choose_metrics_format("text/plain", "json"), MetricsFormat::kJson);
}

}  // namespace
}  // namespace strata
