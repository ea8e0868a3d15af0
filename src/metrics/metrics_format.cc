#include "metrics/metrics_format.h"

#include <cctype>
#include <charconv>

namespace strata {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// True when a media range's parameters carry q=0 (the client refuses that type).
bool refused(std::string_view params) {
  while (!params.empty()) {
    size_t semi = params.find(';');
    std::string_view p = trim(params.substr(0, semi));
    params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
    if (p.size() < 2 || (p[0] != 'q' && p[0] != 'Q') || p[1] != '=') continue;
    std::string_view v = trim(p.substr(2));
    double q = 1.0;
    auto res = std::from_chars(v.data(), v.data() + v.size(), q);
    if (res.ec == std::errc() && q <= 0.0) return true;
  }
  return false;
}

bool accepts_prometheus_text(std::string_view accept) {
  while (!accept.empty()) {
    size_t comma = accept.find(',');
    std::string_view range = accept.substr(0, comma);
    accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
    size_t semi = range.find(';');
    std::string_view type = trim(range.substr(0, semi));
    std::string_view params = semi == std::string_view::npos ? std::string_view()
                                                             : range.substr(semi + 1);
    if ((iequals(type, "text/plain") || iequals(type, "application/openmetrics-text")) &&
        !refused(params)) {
      return true;
    }
  }
  return false;
}

}  // namespace

MetricsFormat choose_metrics_format(std::string_view accept_header, std::string_view query_format) {
  if (iequals(query_format, "prometheus")) return MetricsFormat::kPrometheus;
  if (iequals(query_format, "json")) return MetricsFormat::kJson;
  return accepts_prometheus_text(accept_header) ? MetricsFormat::kPrometheus : MetricsFormat::kJson;
}

}  // namespace strata
