// OpenAI's n: several answers to one prompt, each its own engine request, over chat and
// completions, streamed and not, with a FakeEngine behind the HTTP layer. (That choice c is the
// answer a one-choice request with seed + c gets, byte for byte, is checked on a real model by
// the OpenAI SDK client test, tests/clients/server_openai.test.mjs.)
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <thread>

#include "server/testing/test_server.h"

namespace strata::server {
namespace {

using nlohmann::json;
using testing::FakeEngine;
using testing::SseStream;
using testing::TestServer;
using testing::engine_with_reply;
using testing::kJsonType;
using testing::kTestApiKey;
using testing::parse_sse;
using testing::test_config;

const std::string kChoiceReply = FakeEngine::Options{}.reply;

json n_chat_body(json extra) {
  json body = {{"model", "m"}, {"messages", json::array({{{"role", "user"}, {"content", "Say hi"}}})}};
  body.update(extra);
  return body;
}

TEST(ChoicesHttp, EachChatChoiceIsARequestWithItsOwnSeedAndTheUsageAddsUp) {
  FakeEngine::Options engine;
  engine.n_parallel = 3;
  engine.cached_tokens = 4;
  TestServer server(test_config(), engine);
  json request = n_chat_body({{"n", 3}, {"seed", 40}, {"temperature", 1}, {"max_tokens", 6}});
  auto res = server.client(kTestApiKey).Post("/v1/chat/completions", request.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json body = json::parse(res->body);
  ASSERT_EQ(body["choices"].size(), 3u);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(body["choices"][c]["index"], c);
    EXPECT_EQ(body["choices"][c]["message"]["content"], kChoiceReply.substr(0, 6));
    EXPECT_EQ(body["choices"][c]["finish_reason"], "length");
  }
  // The prompt is counted once, the completions of every choice added up.
  EXPECT_EQ(body["usage"]["prompt_tokens"], 25);
  EXPECT_EQ(body["usage"]["completion_tokens"], 18);
  EXPECT_EQ(body["usage"]["total_tokens"], 43);
  EXPECT_EQ(body["usage"]["prompt_tokens_details"]["cached_tokens"], 4);
  std::vector<GenerateRequest> sent = server.engine().submitted();
  ASSERT_EQ(sent.size(), 3u);
  std::set<uint64_t> seeds;
  for (const GenerateRequest& r : sent) {
    EXPECT_EQ(r.n, 3);
    EXPECT_EQ(r.sampling.seed, 40u + static_cast<uint64_t>(r.choice));
    EXPECT_EQ(r.prompt_tokens, sent[0].prompt_tokens);
    seeds.insert(r.sampling.seed);
  }
  EXPECT_EQ(seeds, (std::set<uint64_t>{40, 41, 42}));
}

TEST(ChoicesHttp, WithoutASeedTheChoicesStillSampleDifferentStreams) {
  FakeEngine::Options engine;
  engine.n_parallel = 2;
  TestServer server(test_config(), engine);
  json request = n_chat_body({{"n", 2}, {"temperature", 1}, {"max_tokens", 2}});
  ASSERT_EQ(server.client(kTestApiKey).Post("/v1/chat/completions", request.dump(), kJsonType)->status, 200);
  std::vector<GenerateRequest> sent = server.engine().submitted();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_NE(sent[0].sampling.seed, sent[1].sampling.seed);
}

TEST(ChoicesHttp, StreamedChoicesInterleaveEachWithItsRoleTextAndFinish) {
  FakeEngine::Options engine;
  engine.n_parallel = 2;
  TestServer server(test_config(), engine);
  json request = n_chat_body({{"n", 2}, {"stream", true}, {"stream_options", {{"include_usage", true}}}});
  auto res = server.client(kTestApiKey).Post("/v1/chat/completions", request.dump(), kJsonType);
  ASSERT_EQ(res->status, 200);
  SseStream sse = parse_sse(res->body);
  ASSERT_GE(sse.data.size(), 3u);
  EXPECT_EQ(sse.data.back(), "[DONE]");
  EXPECT_EQ(std::count(sse.data.begin(), sse.data.end(), "[DONE]"), 1);
  std::map<int, std::string> text, finish, role;
  for (size_t i = 0; i + 2 < sse.data.size(); ++i) {
    json chunk = json::parse(sse.data[i]);
    ASSERT_EQ(chunk["choices"].size(), 1u) << sse.data[i];
    const json& choice = chunk["choices"][0];
    const int index = choice["index"];
    ASSERT_TRUE(index == 0 || index == 1) << sse.data[i];
    ASSERT_TRUE(finish[index].empty()) << "a chunk after choice " << index << "'s finish: " << sse.data[i];
    if (choice["delta"].contains("role")) role[index] += choice["delta"]["role"].get<std::string>();
    if (choice["delta"].contains("content")) text[index] += choice["delta"]["content"].get<std::string>();
    if (!choice["finish_reason"].is_null()) finish[index] = choice["finish_reason"];
  }
  for (int c = 0; c < 2; ++c) {
    EXPECT_EQ(role[c], "assistant");
    EXPECT_EQ(text[c], kChoiceReply);
    EXPECT_EQ(finish[c], "stop");
  }
  json usage = json::parse(sse.data[sse.data.size() - 2]);
  EXPECT_TRUE(usage["choices"].empty());
  EXPECT_EQ(usage["usage"]["completion_tokens"], 2 * kChoiceReply.size());
  EXPECT_EQ(usage["usage"]["prompt_tokens"], 25);
}

TEST(ChoicesHttp, TextCompletionChoicesStreamedAndNot) {
  FakeEngine::Options engine;
  engine.n_parallel = 2;
  TestServer server(test_config(), engine);
  auto cli = server.client(kTestApiKey);
  json request = {{"prompt", "Once"}, {"max_tokens", 3}, {"n", 2}, {"best_of", 2}};
  json body = json::parse(cli.Post("/v1/completions", request.dump(), kJsonType)->body);
  ASSERT_EQ(body["choices"].size(), 2u) << body;
  EXPECT_EQ(body["choices"][1]["index"], 1);
  EXPECT_EQ(body["choices"][1]["text"], "Hel");
  EXPECT_EQ(body["usage"]["completion_tokens"], 6);
  request["stream"] = true;
  SseStream sse = parse_sse(cli.Post("/v1/completions", request.dump(), kJsonType)->body);
  std::map<int, std::string> text;
  for (size_t i = 0; i + 1 < sse.data.size(); ++i) {
    json choice = json::parse(sse.data[i])["choices"][0];
    text[choice["index"].get<int>()] += choice["text"].get<std::string>();
  }
  EXPECT_EQ(text, (std::map<int, std::string>{{0, "Hel"}, {1, "Hel"}}));
}

TEST(ChoicesHttp, ToolCallIdsDifferAcrossChoices) {
  FakeEngine::Options engine = engine_with_reply("<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>");
  engine.n_parallel = 2;
  TestServer server(test_config(), engine);
  json request = n_chat_body({{"n", 2}, {"max_tokens", 100},
                            {"tools", {{{"type", "function"}, {"function", {{"name", "f"}}}}}}});
  auto res = server.client(kTestApiKey).Post("/v1/chat/completions", request.dump(), kJsonType);
  ASSERT_EQ(res->status, 200) << res->body;
  json body = json::parse(res->body);
  ASSERT_EQ(body["choices"].size(), 2u);
  const json& first = body["choices"][0]["message"]["tool_calls"];
  const json& second = body["choices"][1]["message"]["tool_calls"];
  ASSERT_EQ(first.size(), 1u) << body;
  ASSERT_EQ(second.size(), 1u) << body;
  EXPECT_NE(first[0]["id"], second[0]["id"]);
}

TEST(ChoicesHttp, ChoicesThatDoNotAllFitTheQueueAre429AndLeaveNothingRunning) {
  FakeEngine::Options engine;
  engine.manual = true;
  engine.n_parallel = 1;
  engine.max_queue = 1;
  TestServer server(test_config(), engine);
  auto res = server.client(kTestApiKey).Post("/v1/chat/completions", n_chat_body({{"n", 3}}).dump(), kJsonType);
  EXPECT_EQ(res->status, 429) << res->body;
  EXPECT_EQ(json::parse(res->body)["error"]["code"], "queue_full");
  // The two choices that were taken were cancelled before the answer went out; each ends at
  // the step that reaches it (the fake engine runs one request per step here).
  EXPECT_EQ(server.engine().submitted().size(), 2u);
  server.engine().step();
  server.engine().step();
  EXPECT_EQ(server.engine().n_active(), 0u);
}

TEST(ChoicesHttp, AChoiceAbortedByShutdownEndsTheWholeAnswerWithItsError) {
  FakeEngine::Options engine;
  engine.manual = true;
  engine.n_parallel = 2;
  TestServer server(test_config(), engine);
  std::string answer;
  std::thread client([&] {
    answer = server.client(kTestApiKey).Post("/v1/chat/completions", n_chat_body({{"n", 2}}).dump(), kJsonType)->body;
  });
  ASSERT_TRUE(server.engine().wait_for_active(2, 10));
  server.engine().step();
  server.engine().cancel(server.engine().submitted().size());  // the last choice ends with kAbort
  server.engine().step();
  while (server.engine().n_active() > 0) server.engine().step();
  client.join();
  json body = json::parse(answer);
  EXPECT_FALSE(body.contains("choices")) << body;
  EXPECT_EQ(body["error"]["code"], "aborted") << body;
}

}  // namespace
}  // namespace strata::server
