// Content negotiation for GET /metrics. Stateless; safe from any thread.
//
// Prometheus text when the query says format=prometheus, or when the Accept header names
// text/plain or application/openmetrics-text with a non-zero q; JSON otherwise (browsers,
// curl's "*/*", the Monitor page) or when the query says format=json.
#pragma once

#include <string_view>

namespace strata {

enum class MetricsFormat { kJson, kPrometheus };

inline constexpr std::string_view kPrometheusContentType =
    "text/plain; version=0.0.4; charset=utf-8";
inline constexpr std::string_view kJsonContentType = "application/json";

MetricsFormat choose_metrics_format(std::string_view accept_header, std::string_view query_format);

}  // namespace strata
