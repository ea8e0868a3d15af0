#include "base/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace strata {

bool set_log_level(std::string_view level) {
  spdlog::level::level_enum lvl;
  if (level == "trace") lvl = spdlog::level::trace;
  else if (level == "debug") lvl = spdlog::level::debug;
  else if (level == "info") lvl = spdlog::level::info;
  else if (level == "warn") lvl = spdlog::level::warn;
  else if (level == "error") lvl = spdlog::level::err;
  else if (level == "off") lvl = spdlog::level::off;
  else return false;
  // Logs go to stderr so that `strata run` can stream generated text on stdout.
  static bool installed = false;
  if (!installed) {
    spdlog::set_default_logger(spdlog::stderr_color_mt("strata"));
    installed = true;
  }
  spdlog::set_level(lvl);
  return true;
}

}  // namespace strata
