// What hostile or careless clients get: huge numbers, pipelined requests, slow heads, too many
// connections, bad framing and wrong methods. Each case is a client error with a JSON body that
// names what is wrong, and none of them holds up other clients.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "server/request_json.h"
#include "server/testing/test_server.h"

namespace strata::server {
namespace {

using nlohmann::json;
using testing::RawConnection;
using testing::TestServer;
using testing::kJsonType;
using testing::kTestApiKey;
using testing::post_request;
using testing::test_config;


std::string get_request(const std::string& path, const std::string& extra_headers = "") {
  return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer test-key\r\n" +
         extra_headers + "\r\n";
}

// The status codes of every response in a raw byte stream, in order.
std::vector<int> statuses(const std::string& received) {
  std::vector<int> out;
  for (size_t at = received.find("HTTP/1.1 "); at != std::string::npos;
       at = received.find("HTTP/1.1 ", at + 1)) {
    out.push_back(std::stoi(received.substr(at + 9, 3)));
  }
  return out;
}

std::string body_of(const std::string& response) {
  size_t at = response.find("\r\n\r\n");
  return at == std::string::npos ? "" : response.substr(at + 4);
}

TEST(HostileClients, NumberTooLargeForADoubleIs400NamingTheField) {
  TestServer server(test_config(), {});
  auto cli = server.client(kTestApiKey);
  const std::string chat = R"({"messages": [{"role": "user", "content": "hi"}], )";
  struct Case {
    std::string path, body, field;
  };
  const std::vector<Case> cases = {
      {"/v1/chat/completions", chat + R"("temperature": 1e309})", "'temperature'"},
      {"/v1/chat/completions", chat + R"("x_unknown_field": -1e400})", "'x_unknown_field'"},
      {"/v1/completions", R"({"prompt": "x", "logit_bias": {"5": 1e999}})", "'logit_bias.5'"},
      {"/v1/messages", R"({"max_tokens": 5, "stop_sequences": ["a", 2e308]})", "'stop_sequences[1]'"},
      {"/tokenize", R"({"content": "x", "n": 1)" + std::string(400, '0') + "}", "'n'"}};
  for (const Case& c : cases) {
    auto res = cli.Post(c.path, c.body, kJsonType);
    ASSERT_TRUE(res) << c.body;
    EXPECT_EQ(res->status, 400) << c.body << " -> " << res->body;
    json error = json::parse(res->body)["error"];
    EXPECT_EQ(error["type"], "invalid_request_error") << res->body;
    EXPECT_NE(error["message"].get<std::string>().find(c.field + " holds a number too large"),
              std::string::npos)
        << res->body;
  }
}

// `n_keys` members "k0": 0, "k1": 0, ... as one JSON object's text.
std::string object_with_keys(size_t n_keys) {
  std::string text = "{";
  for (size_t i = 0; i < n_keys; ++i) text += (i ? ", \"k" : "\"k") + std::to_string(i) + "\": 0";
  return text + "}";
}

// Objects keep the client's key order (request_json.h), and an ordered parse must not be quadratic
// in an object's size: an object with more keys than any real request has (here 200,000 of them,
// in the body, a tool's schema, a call's arguments text or an Anthropic body) is refused at once
// with a 400 naming the object and the limit.
TEST(HostileClients, AnObjectWithTooManyKeysIs400NamingTheLimit) {
  TestServer server(test_config(), {});
  auto cli = server.client(kTestApiKey);
  const std::string many = object_with_keys(200000);
  const std::string messages = R"("messages": [{"role": "user", "content": "hi"}])";
  const std::string limit = "more than " + std::to_string(kMaxObjectKeys) + " keys";
  struct Case {
    std::string path, body, names;
  };
  const std::vector<Case> cases = {
      {"/v1/chat/completions", many, "request body is an object with " + limit},
      {"/v1/chat/completions", "{" + messages + R"(, "tools": [{"type": "function", "function": {"name": "f",
          "parameters": {"type": "object", "properties": )" + many + "}}}]}",
       "'tools[0].function.parameters.properties' is an object with " + limit},
      {"/v1/chat/completions", R"({"messages": [{"role": "assistant", "content": null, "tool_calls": [{"id": "c",
          "type": "function", "function": {"name": "f", "arguments": )" + json(many).dump() + "}}]}]}",
       "'messages[0].tool_calls[0].function.arguments' is an object with " + limit},
      {"/v1/messages", R"({"max_tokens": 5, "metadata": )" + many + ", " + messages + "}",
       "'metadata' is an object with " + limit}};
  for (const Case& c : cases) {
    auto res = cli.Post(c.path, c.body, kJsonType);
    ASSERT_TRUE(res) << c.names;
    EXPECT_EQ(res->status, 400) << c.names << " -> " << res->body;
    json error = json::parse(res->body)["error"];
    EXPECT_EQ(error["type"], "invalid_request_error") << res->body;
    EXPECT_NE(error["message"].get<std::string>().find(c.names), std::string::npos) << res->body;
  }
}

TEST(HostileClients, AnUnexpectedExceptionIs500AndIsLogged) {
  RouteHooks hooks;
  hooks.render_metrics = [](const std::string&, const std::string&) -> HttpBody {
    throw std::runtime_error("metrics renderer broke");
  };
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(32);
  spdlog::default_logger()->sinks().push_back(sink);
  TestServer server(test_config(), {}, hooks);
  auto res = server.client(kTestApiKey).Get("/metrics");
  spdlog::default_logger()->sinks().pop_back();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 500);
  EXPECT_EQ(json::parse(res->body)["error"]["code"], "internal_error");
  std::string logged;
  for (const std::string& line : sink->last_formatted()) logged += line;
  EXPECT_NE(logged.find("GET /metrics threw: metrics renderer broke"), std::string::npos) << logged;
}

TEST(HostileClients, PipelinedRequestsAreAnsweredInOrder) {
  TestServer server(test_config(), {});
  RawConnection conn(server.port());
  ASSERT_TRUE(conn.connected());
  ASSERT_TRUE(conn.send_all(get_request("/health") + get_request("/v1/nothing-here") +
                            post_request("/tokenize", R"({"content": "ab"})", kTestApiKey) +
                            get_request("/v1/models", "Connection: close\r\n")));
  ASSERT_TRUE(conn.read_to_end(10));
  EXPECT_EQ(statuses(conn.received()), (std::vector<int>{200, 404, 200, 200})) << conn.received();
  EXPECT_NE(conn.received().find("fake-model"), std::string::npos);
}

TEST(HostileClients, PipelinedAnswersStayWholeWhenTheClientReadsLate) {
  RouteHooks hooks;
  const std::string page(64 * 1024, 'x');
  hooks.render_metrics = [&page](const std::string&, const std::string&) { return HttpBody{page, "text/plain"}; };
  TestServer server(test_config(), {}, hooks);
  RawConnection conn(server.port());
  std::string requests;
  constexpr int kRequests = 100;  // 6.4 MB of answers: more than the socket buffers hold
  for (int i = 0; i < kRequests; ++i) {
    requests += get_request("/metrics", i + 1 == kRequests ? "Connection: close\r\n" : "");
  }
  ASSERT_TRUE(conn.send_all(requests));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the server fills the buffers and waits
  ASSERT_TRUE(conn.read_to_end(30));
  EXPECT_EQ(statuses(conn.received()), std::vector<int>(kRequests, 200));
  size_t n_pages = 0;
  for (size_t at = conn.received().find("\r\n\r\n" + page); at != std::string::npos;
       at = conn.received().find("\r\n\r\n" + page, at + 1)) {
    ++n_pages;
  }
  EXPECT_EQ(n_pages, static_cast<size_t>(kRequests));
}

TEST(HostileClients, AnUnreadBodyClosesTheConnectionInsteadOfBeingReadAsARequest) {
  TestServer server(test_config(), {});
  RawConnection conn(server.port());
  // No key: answered 401 before the body is read; the body must not become a second request.
  std::string unauthorized = post_request("/v1/chat/completions", "GET /health HTTP/1.1\r\n\r\n", "bad");
  ASSERT_TRUE(conn.send_all(unauthorized));
  ASSERT_TRUE(conn.read_to_end(10));
  EXPECT_EQ(statuses(conn.received()), (std::vector<int>{401})) << conn.received();
}

TEST(HostileClients, SlowHeadsDoNotDelayOtherClients) {
  ServerConfig config = test_config();
  config.http_threads = 2;
  config.request_deadline_s = 60;
  TestServer server(config, {});
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 12; ++i) {
    slow.push_back(std::make_unique<RawConnection>(server.port()));
    ASSERT_TRUE(slow.back()->send_all("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  }
  auto res = server.client().Get("/health");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  // Answered while every slow client is still mid-head: none of them got an answer or a close.
  for (auto& conn : slow) {
    EXPECT_FALSE(conn->read_until("HTTP/1.1", 0.01));
    EXPECT_TRUE(conn->received().empty());
  }
}

// Answers written outside httplib still reach the request hook (and so /metrics).
struct StatusLog {
  std::mutex mu;
  std::vector<std::string> seen;
  RouteHooks hooks() {
    RouteHooks h;
    h.on_http_request = [this](std::string_view handler, std::string_view method, int status) {
      std::lock_guard<std::mutex> lock(mu);
      seen.push_back(std::string(handler) + " " + std::string(method) + " " + std::to_string(status));
    };
    return h;
  }
  bool has(const std::string& entry) {
    std::lock_guard<std::mutex> lock(mu);
    return std::find(seen.begin(), seen.end(), entry) != seen.end();
  }
};

TEST(HostileClients, AHeadPastTheRequestDeadlineIs408) {
  ServerConfig config = test_config();
  config.request_deadline_s = 0.2;
  StatusLog log;
  TestServer server(config, {}, log.hooks());
  RawConnection conn(server.port());
  ASSERT_TRUE(conn.send_all("POST /tokenize HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  ASSERT_TRUE(conn.read_to_end(10));
  EXPECT_EQ(statuses(conn.received()), (std::vector<int>{408})) << conn.received();
  EXPECT_EQ(json::parse(body_of(conn.received()))["error"]["code"], "request_timeout");
  EXPECT_TRUE(log.has("unknown unknown 408"));
}

TEST(HostileClients, ConnectionsPastTheLimitAre503WithRetryAfter) {
  ServerConfig config = test_config();
  config.max_connections = 2;
  config.request_deadline_s = 60;
  StatusLog log;
  TestServer server(config, {}, log.hooks());
  RawConnection first(server.port()), second(server.port());
  ASSERT_TRUE(first.send_all("GET /health HTTP/1.1\r\n"));
  ASSERT_TRUE(second.send_all("GET /health HTTP/1.1\r\n"));
  ASSERT_TRUE(server.wait_for_open_connections(2, 10));
  auto refused = server.client().Get("/health");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 503);
  EXPECT_EQ(refused->get_header_value("Retry-After"), "1");
  EXPECT_EQ(json::parse(refused->body)["error"]["code"], "too_many_connections");
  EXPECT_TRUE(log.has("unknown unknown 503"));
  ASSERT_TRUE(first.send_all("Host: 127.0.0.1\r\n\r\n"));
  ASSERT_TRUE(first.read_until("\r\n\r\n", 10));
  EXPECT_EQ(statuses(first.received()), (std::vector<int>{200}));
}

TEST(HostileClients, UriTooLongIsAClientError) {
  TestServer server(test_config(), {});
  auto res = server.client().Get("/" + std::string(9000, 'a'));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 414);
  json error = json::parse(res->body)["error"];
  EXPECT_EQ(error["type"], "invalid_request_error");
  EXPECT_EQ(error["code"], "uri_too_long");
}

TEST(HostileClients, ANegativeContentLengthIs400AndClosesTheConnection) {
  TestServer server(test_config(), {});
  for (const char* length : {"-5", "12abc", "99999999999999999999999"}) {
    RawConnection conn(server.port());
    ASSERT_TRUE(conn.send_all(std::string("POST /tokenize HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: "
                                          "Bearer test-key\r\nContent-Length: ") +
                              length + "\r\n\r\n{}"));
    ASSERT_TRUE(conn.read_to_end(10)) << length;
    EXPECT_EQ(statuses(conn.received()), (std::vector<int>{400})) << conn.received();
    json error = json::parse(body_of(conn.received()))["error"];
    EXPECT_EQ(error["code"], "invalid_content_length");
    EXPECT_NE(error["message"].get<std::string>().find(length), std::string::npos);
  }
}

TEST(HostileClients, AWrongMethodOnAKnownPathIs405WithAllow) {
  TestServer server(test_config(), {});
  auto cli = server.client(kTestApiKey);
  auto post_health = cli.Post("/health", "{}", kJsonType);
  ASSERT_TRUE(post_health);
  EXPECT_EQ(post_health->status, 405);
  EXPECT_EQ(post_health->get_header_value("Allow"), "GET, HEAD");
  EXPECT_EQ(json::parse(post_health->body)["error"]["code"], "method_not_allowed");
  auto get_chat = cli.Get("/v1/chat/completions");
  EXPECT_EQ(get_chat->status, 405);
  EXPECT_EQ(get_chat->get_header_value("Allow"), "POST");
  auto delete_model = cli.Delete("/v1/models/fake-model");
  EXPECT_EQ(delete_model->status, 405);
  EXPECT_EQ(delete_model->get_header_value("Allow"), "GET, HEAD");
  auto get_messages = cli.Get("/v1/messages");
  EXPECT_EQ(get_messages->status, 405);
  EXPECT_EQ(json::parse(get_messages->body)["error"]["type"], "invalid_request_error");
  for (const char* post_only : {"/v1/responses", "/v1/embeddings"}) {
    auto get = cli.Get(post_only);
    EXPECT_EQ(get->status, 405) << post_only;
    EXPECT_EQ(get->get_header_value("Allow"), "POST") << post_only;
  }
  EXPECT_EQ(cli.Post("/v2/unknown", "{}", kJsonType)->status, 404);
  EXPECT_EQ(cli.Get("/v1/unknown")->status, 404);
}

}  // namespace
}  // namespace strata::server
