// The HTTP layer end to end over a loopback socket, with a FakeEngine behind it.
#include "server/http_server.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <mutex>

#include "server/testing/test_server.h"

namespace strata::server {
namespace {

using nlohmann::json;
using testing::FakeEngine;
using testing::SseStream;
using testing::parse_sse;
using testing::TestServer;
using testing::kJsonType;
using testing::kTestApiKey;
using testing::test_config;

const std::string kFakeReply = FakeEngine::Options{}.reply;

json chat_body(json extra = json::object()) {
  json body = {{"model", "anything"},
               {"messages", json::array({{{"role", "user"}, {"content", "Say hi"}}})},
               {"temperature", 0}};
  body.update(extra);
  return body;
}

TEST(HttpServer, HealthIs503WhileLoadingAnd200After) {
  TestServer server(test_config(), {}, {}, /*publish=*/false);
  auto cli = server.client();
  auto loading = cli.Get("/health");
  ASSERT_TRUE(loading);
  EXPECT_EQ(loading->status, 503);
  EXPECT_EQ(json::parse(loading->body)["status"], "loading");
  auto chat = server.client(kTestApiKey).Post("/v1/chat/completions", chat_body().dump(), kJsonType);
  EXPECT_EQ(chat->status, 503);
  EXPECT_EQ(json::parse(chat->body)["error"]["code"], "model_loading");
  server.publish();
  auto ready = cli.Get("/health");
  EXPECT_EQ(ready->status, 200);
  EXPECT_EQ(json::parse(ready->body)["status"], "ok");
}

TEST(HttpServer, ApiRoutesNeedAKey) {
  TestServer server(test_config(), {});
  auto none = server.client().Post("/v1/chat/completions", chat_body().dump(), kJsonType);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(json::parse(none->body)["error"]["code"], "invalid_api_key");
  EXPECT_EQ(server.client("wrong").Get("/v1/models")->status, 401);
  EXPECT_EQ(server.client(kTestApiKey).Get("/v1/models")->status, 200);
  auto cli = server.client();
  EXPECT_EQ(cli.Get("/v1/models", {{"x-api-key", kTestApiKey}})->status, 200);
  auto anthropic = cli.Post("/v1/messages", "{}", kJsonType);
  EXPECT_EQ(anthropic->status, 401);
  EXPECT_EQ(json::parse(anthropic->body)["type"], "error");
  EXPECT_EQ(json::parse(anthropic->body)["error"]["type"], "authentication_error");
  EXPECT_EQ(cli.Post("/tokenize", "{}", kJsonType)->status, 401);
  EXPECT_EQ(cli.Get("/slots")->status, 401);
  EXPECT_EQ(cli.Get("/health")->status, 200);
}

TEST(HttpServer, MetricsNeedAKeyUnlessMetricsNoAuth) {
  RouteHooks hooks;
  hooks.render_metrics = [](const std::string& accept, const std::string& query) {
    return HttpBody{"accept=" + accept + " query=" + query, "text/plain; version=0.0.4"};
  };
  TestServer locked(test_config(), {}, hooks);
  EXPECT_EQ(locked.client().Get("/metrics")->status, 401);
  auto page = locked.client(kTestApiKey).Get("/metrics?format=json", {{"Accept", "application/json"}});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->body, "accept=application/json query=format=json");
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/plain; version=0.0.4");
  ServerConfig open_config = test_config();
  open_config.metrics_no_auth = true;
  TestServer open(open_config, {}, hooks);
  EXPECT_EQ(open.client().Get("/metrics")->status, 200);
  EXPECT_EQ(open.client().Get("/v1/models")->status, 401);
}

TEST(HttpServer, WebAssetsComeFromTheHookWithoutAKey) {
  RouteHooks hooks;
  hooks.web_asset = [](std::string_view path) -> std::optional<HttpBody> {
    if (path == "/") return HttpBody{"<html>strata</html>", "text/html"};
    return std::nullopt;
  };
  TestServer server(test_config(), {}, hooks);
  auto page = server.client().Get("/");
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->body, "<html>strata</html>");
  auto missing = server.client().Get("/nope.js");
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(json::parse(missing->body)["error"]["type"], "not_found_error");
}

TEST(HttpServer, BadRequestsGetJsonErrors) {
  ServerConfig config = test_config();
  config.max_body_bytes = 4096;
  TestServer server(config, {});
  auto cli = server.client(kTestApiKey);
  auto invalid = cli.Post("/v1/chat/completions", "{not json", kJsonType);
  EXPECT_EQ(invalid->status, 400);
  json body = json::parse(invalid->body);
  EXPECT_EQ(body["error"]["type"], "invalid_request_error");
  EXPECT_NE(body["error"]["message"].get<std::string>().find("not valid JSON"), std::string::npos);
  auto wrong_type = cli.Post("/v1/chat/completions", chat_body({{"max_tokens", "ten"}}).dump(), kJsonType);
  EXPECT_EQ(wrong_type->status, 400);
  auto empty = cli.Post("/v1/chat/completions", R"({"messages": []})", kJsonType);
  EXPECT_EQ(empty->status, 400);
  auto big = cli.Post("/v1/chat/completions", std::string(8192, ' '), kJsonType);
  EXPECT_EQ(big->status, 413);
  EXPECT_EQ(json::parse(big->body)["error"]["code"], "body_too_large");
  auto unknown = cli.Post("/v2/whatever", "{}", kJsonType);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_EQ(json::parse(unknown->body)["error"]["code"], "not_found");
  auto context = cli.Post("/v1/chat/completions", chat_body({{"max_tokens", 100000}}).dump(), kJsonType);
  EXPECT_EQ(context->status, 400);
  EXPECT_EQ(json::parse(context->body)["error"]["code"], "context_length_exceeded");
}

TEST(HttpServer, MalformedBodiesAreClientErrorsNeverServerErrors) {
  TestServer server(test_config(), {});
  auto cli = server.client(kTestApiKey);
  const std::vector<std::string> bodies = {
      "", "null", "[]", "\"x\"", "{\"messages\": null}", "{\"messages\": [null]}",
      "{\"messages\": [{\"role\": 1}]}", "{\"messages\": [{\"role\": \"user\", \"content\": {}}]}",
      "{\"messages\": [{\"role\": \"user\", \"content\": [1]}]}", "{\"prompt\": {}}",
      "{\"prompt\": [[[1]]]}", "{\"prompt\": \"x\", \"stop\": {}}", "{\"prompt\": \"x\", \"logit_bias\": []}",
      "{\"prompt\": \"x\", \"stream_options\": 3}", "{\"prompt\": \"x\", \"seed\": \"s\"}",
      "{\"max_tokens\": 5, \"messages\": [{\"role\": \"user\", \"content\": [{\"type\": []}]}]}",
      "{\"max_tokens\": \"5\", \"system\": 7, \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}",
      "{\"prompt\": \"x\", \"max_tokens\": 1e300}", "{\"prompt\": [1, 2.5]}", "\xff\xfe{"};
  for (const char* path : {"/v1/chat/completions", "/v1/completions", "/v1/messages",
                           "/v1/messages/count_tokens", "/tokenize", "/detokenize"}) {
    for (const std::string& body : bodies) {
      auto res = cli.Post(path, body, kJsonType);
      ASSERT_TRUE(res) << path << " " << body;
      EXPECT_GE(res->status, 400) << path << " " << body;
      EXPECT_LT(res->status, 500) << path << " " << body << " -> " << res->body;
      EXPECT_TRUE(json::parse(res->body)["error"].is_object()) << res->body;
    }
  }
}

TEST(HttpServer, ChatCompletionAnswersWithTheReplyAndUsage) {
  FakeEngine::Options engine;
  engine.cached_tokens = 3;
  TestServer server(test_config(), engine);
  auto res = server.client(kTestApiKey).Post("/v1/chat/completions", chat_body().dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json body = json::parse(res->body);
  EXPECT_EQ(body["object"], "chat.completion");
  EXPECT_EQ(body["model"], "fake-model");  // any requested name maps to the served model
  EXPECT_EQ(body["choices"][0]["message"]["content"], kFakeReply);
  EXPECT_EQ(body["choices"][0]["finish_reason"], "stop");
  // BOS + "user: Say hi\nassistant: "
  EXPECT_EQ(body["usage"]["prompt_tokens"], 1 + 24);
  EXPECT_EQ(body["usage"]["completion_tokens"], kFakeReply.size());
  EXPECT_EQ(body["usage"]["prompt_tokens_details"]["cached_tokens"], 3);
  const GenerateRequest sent = server.engine().submitted().at(0);
  EXPECT_EQ(sent.sampling.temperature, 0.0f);
  EXPECT_EQ(sent.max_tokens, 512 - 25);  // no max_tokens: the rest of the context
}

TEST(HttpServer, MaxTokensEndsWithLengthAndStopStringsCut) {
  TestServer server(test_config(), {});
  auto cli = server.client(kTestApiKey);
  json length = json::parse(cli.Post("/v1/chat/completions", chat_body({{"max_tokens", 5}}).dump(), kJsonType)->body);
  EXPECT_EQ(length["choices"][0]["message"]["content"], kFakeReply.substr(0, 5));
  EXPECT_EQ(length["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(length["usage"]["completion_tokens"], 5);
  json stop = json::parse(cli.Post("/v1/chat/completions", chat_body({{"stop", "fake"}}).dump(), kJsonType)->body);
  EXPECT_EQ(stop["choices"][0]["message"]["content"], "Hello from the ");
  EXPECT_EQ(stop["choices"][0]["finish_reason"], "stop");
}

TEST(HttpServer, TextCompletionAndLogprobs) {
  TestServer server(test_config(), {});
  json request = {{"prompt", "Once"}, {"max_tokens", 3}, {"logprobs", 2}};
  auto res = server.client(kTestApiKey).Post("/v1/completions", request.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json body = json::parse(res->body);
  EXPECT_EQ(body["object"], "text_completion");
  EXPECT_EQ(body["choices"][0]["text"], "Hel");
  EXPECT_EQ(body["choices"][0]["logprobs"]["tokens"], json::array({"H", "e", "l"}));
  EXPECT_EQ(body["choices"][0]["logprobs"]["top_logprobs"][0].size(), 2u);
  EXPECT_EQ(body["usage"]["prompt_tokens"], 5);
}

TEST(HttpServer, StreamedChatMatchesTheNonStreamedText) {
  TestServer server(test_config(), {});
  auto cli = server.client(kTestApiKey);
  json request = chat_body({{"stream", true}, {"stream_options", {{"include_usage", true}}}});
  auto res = cli.Post("/v1/chat/completions", request.dump(), kJsonType);
  ASSERT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/event-stream");
  SseStream sse = parse_sse(res->body);
  ASSERT_GE(sse.data.size(), 4u);
  EXPECT_EQ(sse.data.back(), "[DONE]");
  json first = json::parse(sse.data.front());
  EXPECT_EQ(first["choices"][0]["delta"]["role"], "assistant");
  std::string text;
  std::string finish;
  for (size_t i = 0; i + 2 < sse.data.size(); ++i) {
    json chunk = json::parse(sse.data[i]);
    EXPECT_EQ(chunk["object"], "chat.completion.chunk");
    EXPECT_TRUE(chunk["usage"].is_null());
    const json& choice = chunk["choices"][0];
    if (choice["delta"].contains("content")) text += choice["delta"]["content"].get<std::string>();
    if (!choice["finish_reason"].is_null()) finish = choice["finish_reason"];
  }
  EXPECT_EQ(text, kFakeReply);
  EXPECT_EQ(finish, "stop");
  json usage = json::parse(sse.data[sse.data.size() - 2]);
  EXPECT_TRUE(usage["choices"].empty());
  EXPECT_EQ(usage["usage"]["completion_tokens"], kFakeReply.size());
  json plain = json::parse(cli.Post("/v1/chat/completions", chat_body().dump(), kJsonType)->body);
  EXPECT_EQ(plain["choices"][0]["message"]["content"], text);
}

TEST(HttpServer, StreamedCompletionsEndWithDone) {
  TestServer server(test_config(), {});
  json request = {{"prompt", "x"}, {"max_tokens", 4}, {"stream", true}};
  auto res = server.client(kTestApiKey).Post("/v1/completions", request.dump(), kJsonType);
  SseStream sse = parse_sse(res->body);
  ASSERT_FALSE(sse.data.empty());
  EXPECT_EQ(sse.data.back(), "[DONE]");
  std::string text;
  for (size_t i = 0; i + 1 < sse.data.size(); ++i) {
    text += json::parse(sse.data[i])["choices"][0]["text"].get<std::string>();
  }
  EXPECT_EQ(text, kFakeReply.substr(0, 4));
  EXPECT_EQ(json::parse(sse.data[sse.data.size() - 2])["choices"][0]["finish_reason"], "length");
}

TEST(HttpServer, AnthropicMessages) {
  TestServer server(test_config(), {});
  auto cli = server.client(kTestApiKey);
  json request = {{"model", "claude"},
                  {"max_tokens", 50},
                  {"system", "be nice"},
                  {"stop_sequences", {"engine"}},
                  {"messages", {{{"role", "user"}, {"content", "Hi"}}}}};
  auto res = cli.Post("/v1/messages", request.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json body = json::parse(res->body);
  EXPECT_EQ(body["type"], "message");
  EXPECT_EQ(body["content"][0]["text"], "Hello from the fake ");
  EXPECT_EQ(body["stop_reason"], "stop_sequence");
  EXPECT_EQ(body["stop_sequence"], "engine");
  EXPECT_EQ(body["usage"]["output_tokens"], 26);
  // BOS + "system: be nice\nuser: Hi\nassistant: "
  EXPECT_EQ(body["usage"]["input_tokens"], 1 + 36);

  request["stream"] = true;
  request.erase("stop_sequences");
  SseStream sse = parse_sse(cli.Post("/v1/messages", request.dump(), kJsonType)->body);
  ASSERT_GE(sse.events.size(), 7u);
  EXPECT_EQ(sse.events[0], "message_start");
  EXPECT_EQ(sse.events[1], "content_block_start");
  EXPECT_EQ(sse.events[2], "ping");
  EXPECT_EQ(sse.events[3], "content_block_delta");
  EXPECT_EQ(sse.events[sse.events.size() - 3], "content_block_stop");
  EXPECT_EQ(sse.events[sse.events.size() - 2], "message_delta");
  EXPECT_EQ(sse.events.back(), "message_stop");
  std::string text;
  for (size_t i = 0; i < sse.events.size(); ++i) {
    json data = json::parse(sse.data[i]);
    EXPECT_EQ(data["type"], sse.events[i]);
    if (sse.events[i] == "content_block_delta") text += data["delta"]["text"].get<std::string>();
  }
  EXPECT_EQ(text, kFakeReply);
  json delta = json::parse(sse.data[sse.data.size() - 2]);
  EXPECT_EQ(delta["delta"]["stop_reason"], "end_turn");
  EXPECT_EQ(delta["usage"]["output_tokens"], kFakeReply.size());
  auto bad = cli.Post("/v1/messages", R"({"messages": [{"role": "user", "content": "x"}]})", kJsonType);
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(json::parse(bad->body)["error"]["type"], "invalid_request_error");
}

TEST(HttpServer, FullQueueIs429WithRetryAfter) {
  FakeEngine::Options engine;
  engine.manual = true;
  engine.n_parallel = 1;
  engine.max_queue = 0;
  TestServer server(test_config(), engine);
  std::thread first([&] {
    server.client(kTestApiKey).Post("/v1/chat/completions", chat_body({{"max_tokens", 2}}).dump(), kJsonType);
  });
  ASSERT_TRUE(server.engine().wait_for_active(1, 10));
  auto full = server.client(kTestApiKey).Post("/v1/chat/completions", chat_body().dump(), kJsonType);
  EXPECT_EQ(full->status, 429);
  EXPECT_EQ(full->get_header_value("Retry-After"), "1");
  EXPECT_EQ(json::parse(full->body)["error"]["code"], "queue_full");
  while (server.engine().n_active() > 0) server.engine().step();
  first.join();
}

TEST(HttpServer, DrainingRefusesNewGenerations) {
  TestServer server(test_config(), {});
  server.state().begin_drain();
  auto res = server.client(kTestApiKey).Post("/v1/chat/completions", chat_body().dump(), kJsonType);
  EXPECT_EQ(res->status, 503);
  EXPECT_EQ(json::parse(res->body)["error"]["code"], "shutting_down");
  EXPECT_EQ(server.client().Get("/health")->status, 503);
}

TEST(HttpServer, TokenizeAndDetokenize) {
  TestServer server(test_config(), {});
  auto cli = server.client(kTestApiKey);
  json tokens = json::parse(cli.Post("/tokenize", R"({"content": "ab", "add_special": true})", kJsonType)->body);
  EXPECT_EQ(tokens["tokens"], json::array({1, 3 + 'a', 3 + 'b'}));
  json plain = json::parse(cli.Post("/tokenize", R"({"content": "ab", "with_pieces": true})", kJsonType)->body);
  EXPECT_EQ(plain["tokens"], json::array({3 + 'a', 3 + 'b'}));
  EXPECT_EQ(plain["pieces"], json::array({"a", "b"}));
  json text = json::parse(cli.Post("/detokenize", R"({"tokens": [100, 101]})", kJsonType)->body);
  EXPECT_EQ(text["content"], "ab");
  EXPECT_EQ(cli.Post("/detokenize", R"({"tokens": [100000]})", kJsonType)->status, 400);
  EXPECT_EQ(cli.Post("/tokenize", R"({"content": 5})", kJsonType)->status, 400);
  EXPECT_EQ(cli.Post("/tokenize", R"({})", kJsonType)->status, 400);
}

TEST(HttpServer, ModelsStatusAndSlots) {
  TestServer server(test_config(), {});
  auto cli = server.client(kTestApiKey);
  json models = json::parse(cli.Get("/v1/models")->body);
  EXPECT_EQ(models["object"], "list");
  EXPECT_EQ(models["data"][0]["id"], "fake-model");
  EXPECT_EQ(cli.Get("/v1/models/fake-model")->status, 200);
  EXPECT_EQ(cli.Get("/v1/models/other")->status, 404);
  json status = json::parse(cli.Get("/v1/status")->body);
  EXPECT_EQ(status["model"], "fake-model");
  EXPECT_EQ(status["context"], 512);
  EXPECT_EQ(status["parallel"], 2);
  EXPECT_EQ(status["version"], "test");
  for (const char* key : {"groups", "stages", "threads", "uptime_s", "load"}) {
    EXPECT_TRUE(status.contains(key)) << key;
  }
  for (const char* key : {"stage_busy_s", "group_busy_s"}) {
    EXPECT_TRUE(status["load"][key].is_array()) << key;
  }
  json slots = json::parse(cli.Get("/slots")->body)["slots"];
  ASSERT_EQ(slots.size(), 2u);
  EXPECT_EQ(slots[0]["state"], "idle");
  for (const char* key : {"id", "group", "prompt_tokens", "generated_tokens", "tok_s"}) {
    EXPECT_TRUE(slots[0].contains(key)) << key;
  }
}

TEST(HttpServer, EveryResponseReachesTheRequestHookWithARouteLabel) {
  std::mutex mu;
  std::vector<std::string> seen;
  RouteHooks hooks;
  hooks.on_http_request = [&](std::string_view handler, std::string_view method, int status) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(std::string(handler) + " " + std::string(method) + " " + std::to_string(status));
  };
  {
    TestServer server(test_config(), {}, hooks);
    server.client(kTestApiKey).Post("/v1/chat/completions", chat_body({{"stream", true}}).dump(), kJsonType);
    server.client().Post("/v1/chat/completions", "{}", kJsonType);
    server.client().Get("/v1/models/xyz");
    server.client(kTestApiKey).Get("/some/random/path");
    server.client(kTestApiKey).Get("/v1/responses/resp_x/input_items");
    server.client(kTestApiKey).Get("/v1/responses/resp_x");
  }
  std::lock_guard<std::mutex> lock(mu);
  // The hook runs after each response is written, so two responses may report in either order.
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::string>{"/v1/chat/completions POST 200",
                                            "/v1/chat/completions POST 401",
                                            "/v1/models/{id} GET 401", "/v1/responses/{id} GET 404",
                                            "/v1/responses/{id}/input_items GET 404", "unknown GET 404"}));
}

}  // namespace
}  // namespace strata::server
