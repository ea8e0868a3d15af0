#include "server/testing/test_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/clock.h"

namespace strata::server::testing {

ServerConfig test_config() {
  ServerConfig config;
  config.port = 0;
  config.api_keys = {"test-key"};
  config.model_alias = "fake-model";
  config.version = "test";
  config.http_threads = 8;
  return config;
}

FakeEngine::Options engine_with_reply(std::string reply) {
  FakeEngine::Options options;
  options.reply = std::move(reply);
  options.n_ctx = 4096;
  return options;
}

TestServer::TestServer(ServerConfig config, FakeEngine::Options engine_options, RouteHooks hooks,
                       bool publish)
    : engine_(engine_options),
      served_{&engine_, &text_, config.model_alias, engine_options.n_ctx},
      state_(std::move(config)),
      http_(&state_, std::move(hooks)) {
  port_ = *http_.bind();
  thread_ = std::thread([this] { http_.serve(); });
  http_.wait_until_running();
  if (publish) this->publish();
}

TestServer::~TestServer() {
  http_.stop();
  engine_.shutdown(0);  // ends whatever a test left running, so handlers can return
  thread_.join();
}

bool TestServer::wait_for_open_connections(int n, double timeout_s) const {
  const double deadline_s = monotonic_s() + timeout_s;
  while (open_connections() != n) {
    if (monotonic_s() > deadline_s) return false;
    ::usleep(1000);
  }
  return true;
}

httplib::Client TestServer::client(const std::string& api_key) const {
  httplib::Client cli("127.0.0.1", port_);
  if (!api_key.empty()) cli.set_default_headers({{"Authorization", "Bearer " + api_key}});
  cli.set_read_timeout(10, 0);
  return cli;
}

RawConnection::RawConnection(int port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) close();
}

RawConnection::~RawConnection() { close(); }

void RawConnection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool RawConnection::send_all(const std::string& bytes) {
  size_t sent = 0;
  while (fd_ >= 0 && sent < bytes.size()) {
    ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return fd_ >= 0;
}

bool RawConnection::read_until(const std::string& needle, double timeout_s) {
  const double deadline_s = monotonic_s() + timeout_s;
  while (fd_ >= 0 && received_.find(needle) == std::string::npos) {
    const double left_s = deadline_s - monotonic_s();
    if (left_s <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left_s * 1000) + 1) <= 0) continue;
    char buf[4096];
    ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    if (n <= 0) return false;
    received_.append(buf, static_cast<size_t>(n));
  }
  return received_.find(needle) != std::string::npos;
}

bool RawConnection::read_to_end(double timeout_s) {
  const double deadline_s = monotonic_s() + timeout_s;
  while (fd_ >= 0 && monotonic_s() < deadline_s) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    if (n <= 0) return true;
    received_.append(buf, static_cast<size_t>(n));
  }
  return false;
}

AnthropicStream parse_anthropic_stream(const std::string& body) {
  AnthropicStream out;
  for (const std::string& data : parse_sse(body).data) {
    const nlohmann::json event = nlohmann::json::parse(data, nullptr, false);
    if (event.is_discarded()) continue;
    if (event["type"] == "content_block_start") out.block_types.push_back(event["content_block"]["type"]);
    if (event["type"] != "content_block_delta") continue;
    const nlohmann::json& delta = event["delta"];
    if (delta["type"] == "thinking_delta") out.thinking += delta["thinking"].get<std::string>();
    if (delta["type"] == "text_delta") out.text += delta["text"].get<std::string>();
    if (delta["type"] == "input_json_delta") out.inputs += delta["partial_json"].get<std::string>() + "|";
  }
  return out;
}

ReasoningStream parse_reasoning_stream(const std::string& body) {
  ReasoningStream out;
  for (const std::string& data : parse_sse(body).data) {
    if (data == "[DONE]") continue;
    const nlohmann::json chunk = nlohmann::json::parse(data);
    if (chunk["choices"].empty()) {
      out.reasoning_tokens = chunk["usage"]["completion_tokens_details"]["reasoning_tokens"];
      continue;
    }
    const nlohmann::json& choice = chunk["choices"][0];
    if (!choice["finish_reason"].is_null()) out.finish_reason = choice["finish_reason"];
    const nlohmann::json& delta = choice["delta"];
    if (delta.contains("tool_calls")) out.tool_calls.push_back(delta["tool_calls"][0]);
    if (delta.contains("reasoning_content")) {
      out.reasoning_after_content = out.reasoning_after_content || !out.content.empty();
      out.reasoning += delta["reasoning_content"].get<std::string>();
    }
    if (delta.contains("content")) out.content += delta["content"].get<std::string>();
  }
  return out;
}

SseStream parse_sse(const std::string& body) {
  SseStream out;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t end = body.find("\n\n", pos);
    if (end == std::string::npos) end = body.size();
    std::string frame = body.substr(pos, end - pos);
    pos = end + 2;
    size_t at = 0;
    while (at < frame.size()) {
      size_t eol = frame.find('\n', at);
      if (eol == std::string::npos) eol = frame.size();
      std::string line = frame.substr(at, eol - at);
      if (line.rfind("data: ", 0) == 0) out.data.push_back(line.substr(6));
      if (line.rfind("event: ", 0) == 0) out.events.push_back(line.substr(7));
      at = eol + 1;
    }
  }
  return out;
}

std::string post_request(const std::string& path, const std::string& body, const std::string& key) {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

}  // namespace strata::server::testing
