// Logging goes through spdlog's default sink (stderr). Levels: trace, debug, info, warn, error.
// set_log_level() is called once by main() from --log-level; everything else only logs.
#pragma once

#include <spdlog/spdlog.h>

#include <string_view>

namespace strata {

// Accepts "trace", "debug", "info", "warn", "error", "off". Returns false for anything else.
bool set_log_level(std::string_view level);

}  // namespace strata

#define STRATA_LOG_TRACE(...) SPDLOG_TRACE(__VA_ARGS__)
#define STRATA_LOG_DEBUG(...) spdlog::debug(__VA_ARGS__)
#define STRATA_LOG_INFO(...) spdlog::info(__VA_ARGS__)
#define STRATA_LOG_WARN(...) spdlog::warn(__VA_ARGS__)
#define STRATA_LOG_ERROR(...) spdlog::error(__VA_ARGS__)
