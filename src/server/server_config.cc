#include "server/server_config.h"

#include <fmt/format.h>

namespace strata::server {

Status validate_server_config(const ServerConfig& config) {
  if (config.host.empty()) return Status::InvalidArgument("--host must not be empty");
  if (config.port < 0 || config.port > 65535) {
    return Status::InvalidArgument(fmt::format("--port {} is out of range [0, 65535]", config.port));
  }
  if (config.max_body_bytes < 1024) {
    return Status::InvalidArgument(
        fmt::format("--max-body {} is too small (at least 1024 bytes)", config.max_body_bytes));
  }
  if (!(config.drain_timeout_s >= 0 && config.drain_timeout_s <= 86400)) {
    return Status::InvalidArgument(
        fmt::format("--drain-timeout {} is out of range [0, 86400] seconds", config.drain_timeout_s));
  }
  if (config.http_threads < 0) {
    return Status::InvalidArgument("http_threads must be >= 0");
  }
  if (config.max_connections < 1 || config.max_connections > 65536) {
    return Status::InvalidArgument(
        fmt::format("--max-connections {} is out of range [1, 65536]", config.max_connections));
  }
  if (config.responses_store_mib < 0 || config.responses_store_mib > 1 << 20) {
    return Status::InvalidArgument(
        fmt::format("--responses-store-mib {} is out of range [0, 1048576]", config.responses_store_mib));
  }
  if (!(config.request_deadline_s > 0 && config.request_deadline_s <= 3600)) {
    return Status::InvalidArgument(
        fmt::format("--request-timeout {} is out of range (0, 3600] seconds", config.request_deadline_s));
  }
  if (!(config.keep_alive_s > 0) || !(config.poll_s > 0)) {
    return Status::InvalidArgument("keep_alive_s and poll_s must be > 0");
  }
  for (const auto& key : config.api_keys) {
    if (key.empty()) return Status::InvalidArgument("--api-key must not be empty");
  }
  return Status::Ok();
}

}  // namespace strata::server
