// ApiError: an HTTP error answer (status, error type, stable code, message) and its JSON bodies.
//
// Plain value; no shared state. Every 4xx/5xx the server sends is built from one of these, so
// clients always get {"error": {"message", "type", "code"}} (the Anthropic route wraps the same
// object as {"type": "error", "error": {...}} with Anthropic's type names).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace strata::server {

struct ApiError {
  int http_status = 500;
  std::string type;     // OpenAI-style type, e.g. "invalid_request_error"
  std::string code;     // stable machine-readable code, e.g. "context_length_exceeded"
  std::string message;  // names what is wrong
  int retry_after_s = 0;  // > 0: sent as a Retry-After header

  static ApiError BadRequest(std::string code, std::string message);
  static ApiError Unauthorized();
  static ApiError NotFound(std::string message);
  static ApiError MethodNotAllowed(std::string message);
  static ApiError TooLarge(std::string message);
  static ApiError QueueFull(std::string message);
  static ApiError Unavailable(std::string code, std::string message);
  static ApiError Internal(std::string message);
};

// Maps an engine or parser Status to the answer a client should see:
// kInvalidArgument / kUnsupported -> 400, kOutOfRange -> 400 context_length_exceeded,
// kResourceExhausted -> 429 with Retry-After, kNotFound -> 404, kCancelled -> 503, else 500.
ApiError api_error_from_status(const Status& status);

// {"error": {"message", "type", "code", "param": null}}
nlohmann::json openai_error_body(const ApiError& error);
// {"type": "error", "error": {"type": <Anthropic type>, "message", "code"}}
nlohmann::json anthropic_error_body(const ApiError& error);

}  // namespace strata::server
