// Test helpers (tests only): an in-process HttpServer over a FakeEngine on a free loopback
// port, and a raw socket client for tests that must control the connection (disconnects,
// reading a stream as it arrives).
#pragma once

#include <httplib.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "server/http_server.h"
#include "server/server_state.h"
#include "server/testing/fake_engine.h"
#include "server/testing/fake_model_text.h"

namespace strata::server::testing {

// The API key the HTTP tests configure and send, and the content type of their JSON bodies.
inline constexpr const char* kTestApiKey = "test-key";
inline constexpr const char* kJsonType = "application/json";

ServerConfig test_config();

// A FakeEngine that answers every request with reply, in a context of 4096 tokens (tool
// preambles make prompts longer than the fake engine's default context).
FakeEngine::Options engine_with_reply(std::string reply);

class TestServer {
 public:
  // publish: make the model visible at once (false: the server answers as if still loading).
  TestServer(ServerConfig config, FakeEngine::Options engine_options, RouteHooks hooks = {},
             bool publish = true);
  ~TestServer();

  void publish() { state_.publish_model(&served_); }
  httplib::Client client(const std::string& api_key = "") const;
  FakeEngine& engine() { return engine_; }
  FakeModelText& text() { return text_; }  // change it only before the first request
  ServerState& state() { return state_; }
  int port() const { return port_; }
  int open_connections() const { return http_.open_connections(); }
  // Waits up to timeout_s until exactly n connections are open.
  bool wait_for_open_connections(int n, double timeout_s) const;

 private:
  FakeEngine engine_;
  FakeModelText text_;
  ServedModel served_;
  ServerState state_;
  HttpServer http_;
  int port_ = 0;
  std::thread thread_;
};

// One TCP connection, driven by hand.
class RawConnection {
 public:
  explicit RawConnection(int port);
  ~RawConnection();
  bool connected() const { return fd_ >= 0; }
  bool send_all(const std::string& bytes);
  // Reads until the received bytes contain needle, the peer closes, or timeout_s passes.
  bool read_until(const std::string& needle, double timeout_s);
  // Reads until the peer closes the connection (or timeout_s passes); true if it closed.
  bool read_to_end(double timeout_s);
  const std::string& received() const { return received_; }
  void close();

 private:
  int fd_ = -1;
  std::string received_;
};

// The data payloads and event names of an SSE body, in order.
struct SseStream {
  std::vector<std::string> data;
  std::vector<std::string> events;
};
SseStream parse_sse(const std::string& body);

// What an OpenAI chat-completions stream (with include_usage) carried: its reasoning_content
// deltas and its non-empty content deltas, each joined; whether a reasoning delta came after
// content had begun; the usage's reasoning token count (-1 without a usage chunk); each tool-call
// delta's first call, in order; the finish reason ("" if none came).
struct ReasoningStream {
  std::string reasoning, content;
  bool reasoning_after_content = false;
  int reasoning_tokens = -1;
  nlohmann::json tool_calls = nlohmann::json::array();
  std::string finish_reason;
};
ReasoningStream parse_reasoning_stream(const std::string& body);

// What an Anthropic messages stream carried: each content block's type as it started, its
// thinking and text deltas, each joined, and its tool_use input deltas, each followed by "|".
struct AnthropicStream {
  std::vector<std::string> block_types;
  std::string thinking, text, inputs;
};
AnthropicStream parse_anthropic_stream(const std::string& body);

// "POST path" with a JSON body and an API key, as raw HTTP/1.1 bytes.
std::string post_request(const std::string& path, const std::string& body, const std::string& key);

}  // namespace strata::server::testing
