// ServerConfig: the HTTP-side settings of `strata serve` (the engine's live in EngineOptions).
// Plain value; validate() names the first bad field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace strata::server {

struct ServerConfig {
  std::string host = "127.0.0.1";
  int port = 8080;                   // 0: any free port (the chosen one is printed)
  std::vector<std::string> api_keys; // empty: no auth
  bool metrics_no_auth = false;      // /metrics open even when keys are set
  uint64_t max_body_bytes = 16ull << 20;
  double drain_timeout_s = 30.0;     // SIGTERM: how long running requests may go on
  std::string model_alias;           // the model name clients see; empty: the file's name
  std::string version;               // reported by /v1/status
  // --reasoning-format: "auto" answers a thinking model's "<think>" block apart from its content
  // (reasoning_content / thinking blocks); "none" leaves it in the content as generated.
  std::string reasoning_format = "auto";
  // --chat-template-file: a Jinja chat template used instead of the model's; empty: the model's.
  std::string chat_template_file;
  // --config: the engine settings file in use (empty: none), the keys taken from it and those
  // a command-line flag overrode; /v1/status reports them as "config".
  std::string config_file;
  std::vector<std::string> config_from_file;
  std::vector<std::string> config_overridden;
  int http_threads = 0;              // connection threads started up front (more start on demand)
  int max_connections = 512;         // open at once; past it a new connection gets 503 and closes
  // --responses-store-mib: memory for Responses API answers a later request continues with
  // previous_response_id (ResponseStore); 0 keeps none.
  int responses_store_mib = 64;
  double request_deadline_s = 10.0;  // a request's head and body must arrive within this (else 408)
  double keep_alive_s = 5.0;         // silence before a stream keep-alive
  double poll_s = 0.05;              // how often a waiting handler checks its connection
};

// Errors name the flag: "--port 70000 is out of range [0, 65535]".
Status validate_server_config(const ServerConfig& config);

}  // namespace strata::server
