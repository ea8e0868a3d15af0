// POST /v1/responses end to end over a loopback socket with a FakeEngine: the response object,
// its output items and usage, the stream's events in order, function calls, and the token limit;
// and GET / DELETE /v1/responses/{id} and GET /v1/responses/{id}/input_items on the answers kept.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <thread>
#include <vector>

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

const std::string kResponsesReply = FakeEngine::Options{}.reply;

json post_responses(TestServer& server, const json& body) {
  auto res = server.client(kTestApiKey).Post("/v1/responses", body.dump(), kJsonType);
  EXPECT_EQ(res->status, 200) << res->body;
  return json::parse(res->body);
}

// Output items without their ids, which name their response.
json without_ids(json output) {
  for (json& item : output) {
    item.erase("id");
    item.erase("call_id");
  }
  return output;
}

// The events of a streamed answer: (event name, data), checking that each data names its own
// event and that sequence numbers count from 0.
std::vector<std::pair<std::string, json>> stream_events(TestServer& server, json body) {
  body["stream"] = true;
  auto res = server.client(kTestApiKey).Post("/v1/responses", body.dump(), kJsonType);
  EXPECT_EQ(res->status, 200) << res->body;
  SseStream sse = parse_sse(res->body);
  EXPECT_EQ(sse.events.size(), sse.data.size());
  std::vector<std::pair<std::string, json>> out;
  for (size_t i = 0; i < sse.data.size() && i < sse.events.size(); ++i) {
    json data = json::parse(sse.data[i]);
    EXPECT_EQ(data["type"], sse.events[i]);
    EXPECT_EQ(data["sequence_number"], i);
    out.emplace_back(sse.events[i], std::move(data));
  }
  return out;
}

TEST(ResponsesHttp, AnswerIsAResponseWithAMessageAndUsage) {
  TestServer server(test_config(), {});
  json body = post_responses(server, {{"model", "m"}, {"instructions", "Be brief."}, {"input", "Say hi"}});
  EXPECT_EQ(body["object"], "response");
  EXPECT_EQ(body["id"].get<std::string>().rfind("resp_", 0), 0u);
  EXPECT_EQ(body["status"], "completed");
  EXPECT_TRUE(body["incomplete_details"].is_null());
  EXPECT_EQ(body["instructions"], "Be brief.");
  ASSERT_EQ(body["output"].size(), 1u);
  const json& message = body["output"][0];
  EXPECT_EQ(message["type"], "message");
  EXPECT_EQ(message["role"], "assistant");
  EXPECT_EQ(message["status"], "completed");
  EXPECT_EQ(message["content"][0]["type"], "output_text");
  EXPECT_EQ(message["content"][0]["text"], kResponsesReply);
  EXPECT_EQ(body["usage"]["output_tokens"], kResponsesReply.size());
  EXPECT_EQ(body["usage"]["total_tokens"],
            body["usage"]["input_tokens"].get<int>() + body["usage"]["output_tokens"].get<int>());
  // The instructions are the system turn of the prompt.
  const std::string prompt = server.text().detokenize(server.engine().submitted().at(0).prompt_tokens);
  EXPECT_NE(prompt.find("system: Be brief."), std::string::npos) << prompt;
}

TEST(ResponsesHttp, TheTokenLimitMakesItIncomplete) {
  TestServer server(test_config(), {});
  json body = post_responses(server, {{"input", "Say hi"}, {"max_output_tokens", 5}});
  EXPECT_EQ(body["status"], "incomplete");
  EXPECT_EQ(body["incomplete_details"]["reason"], "max_output_tokens");
  EXPECT_EQ(body["output"][0]["content"][0]["text"], kResponsesReply.substr(0, 5));
  EXPECT_EQ(body["max_output_tokens"], 5);
}

TEST(ResponsesHttp, StreamedEventsBuildTheSameMessage) {
  TestServer server(test_config(), {});
  std::vector<std::pair<std::string, json>> events = stream_events(server, {{"input", "Say hi"}});
  std::vector<std::string> names;
  std::string text;
  for (const auto& [name, data] : events) {
    if (names.empty() || names.back() != name) names.push_back(name);
    if (name == "response.output_text.delta") text += data["delta"].get<std::string>();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"response.created", "response.in_progress", "response.output_item.added",
                                             "response.content_part.added", "response.output_text.delta",
                                             "response.output_text.done", "response.content_part.done",
                                             "response.output_item.done", "response.completed"}));
  EXPECT_EQ(text, kResponsesReply);
  EXPECT_EQ(events.front().second["response"]["status"], "in_progress");
  const json& done = events.back().second["response"];
  EXPECT_EQ(done["status"], "completed");
  EXPECT_EQ(done["output"][0]["content"][0]["text"], kResponsesReply);
  EXPECT_EQ(done["usage"]["output_tokens"], kResponsesReply.size());
  EXPECT_EQ(without_ids(done["output"]), without_ids(post_responses(server, {{"input", "Say hi"}})["output"]));
}

constexpr const char* kCallReply =
    "Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";

json tools_body() {
  return json::parse(R"({"input": "Weather in Paris?", "tools": [{"type": "function", "name": "get_weather",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]})");
}

TEST(ResponsesHttp, ToolCallsAreFunctionCallItems) {
  TestServer server(test_config(), engine_with_reply(kCallReply));
  json body = post_responses(server, tools_body());
  ASSERT_EQ(body["output"].size(), 2u) << body;
  EXPECT_EQ(body["output"][0]["type"], "message");
  EXPECT_EQ(body["output"][0]["content"][0]["text"], "Checking.");
  const json& call = body["output"][1];
  EXPECT_EQ(call["type"], "function_call");
  EXPECT_EQ(call["name"], "get_weather");
  EXPECT_EQ(json::parse(call["arguments"].get<std::string>()), json({{"city", "Paris"}}));
  EXPECT_EQ(call["call_id"].get<std::string>().rfind("call_", 0), 0u);
  EXPECT_EQ(call["status"], "completed");
  EXPECT_EQ(body["tools"][0]["name"], "get_weather");

  std::vector<std::pair<std::string, json>> events = stream_events(server, tools_body());
  std::string arguments;
  json added;
  for (const auto& [name, data] : events) {
    if (name == "response.function_call_arguments.delta") arguments += data["delta"].get<std::string>();
    if (name == "response.output_item.added" && data["item"]["type"] == "function_call") added = data;
  }
  EXPECT_EQ(added["output_index"], 1);
  EXPECT_EQ(added["item"]["arguments"], "");
  EXPECT_EQ(json::parse(arguments), json({{"city", "Paris"}}));
  EXPECT_EQ(without_ids(events.back().second["response"]["output"]), without_ids(body["output"]));
}

TEST(ResponsesHttp, FunctionCallOutputsComeBackAsToolTurns) {
  TestServer server(test_config(), engine_with_reply(kResponsesReply));  // room for the tools' preamble
  json request = tools_body();
  request["input"] = json::parse(R"([{"role": "user", "content": "Weather in Paris?"},
      {"type": "function_call", "call_id": "call_9", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
      {"type": "function_call_output", "call_id": "call_9", "output": "sunny, 24 C"}])");
  post_responses(server, request);
  const std::string prompt = server.text().detokenize(server.engine().submitted().at(0).prompt_tokens);
  EXPECT_NE(prompt.find("sunny, 24 C"), std::string::npos) << prompt;
}

TEST(ResponsesHttp, ReasoningIsAReasoningItemBeforeTheMessage) {
  FakeEngine::Options engine;
  engine.reply = "<think>\nThe user greets me.\n</think>\n\nHello!";
  TestServer server(test_config(), engine);
  json body = post_responses(server, {{"input", "Hi"}, {"max_output_tokens", 100}});
  ASSERT_EQ(body["output"].size(), 2u) << body;
  EXPECT_EQ(body["output"][0]["type"], "reasoning");
  EXPECT_EQ(body["output"][0]["content"][0]["type"], "reasoning_text");
  EXPECT_EQ(body["output"][0]["content"][0]["text"], "\nThe user greets me.\n");
  EXPECT_EQ(body["output"][1]["content"][0]["text"], "Hello!");
  EXPECT_EQ(body["usage"]["output_tokens_details"]["reasoning_tokens"], 36);

  std::vector<std::pair<std::string, json>> events = stream_events(server, {{"input", "Hi"}, {"max_output_tokens", 100}});
  std::string reasoning, text;
  for (const auto& [name, data] : events) {
    if (name == "response.reasoning_text.delta") {
      EXPECT_TRUE(text.empty()) << "reasoning after the message";
      EXPECT_EQ(data["output_index"], 0);
      reasoning += data["delta"].get<std::string>();
    }
    if (name == "response.output_text.delta") {
      EXPECT_EQ(data["output_index"], 1);
      text += data["delta"].get<std::string>();
    }
  }
  EXPECT_EQ(reasoning, "\nThe user greets me.\n");
  EXPECT_EQ(text, "Hello!");
  const json& done = events.back().second["response"];
  EXPECT_EQ(without_ids(done["output"]), without_ids(body["output"]));
  EXPECT_EQ(done["usage"]["output_tokens_details"]["reasoning_tokens"], 36);
}

TEST(ResponsesHttp, AnAbortedAnswerEndsTheStreamWithResponseFailed) {
  FakeEngine::Options engine;
  engine.manual = true;
  TestServer server(test_config(), engine);
  std::string answer;
  std::thread client([&] {
    json body = {{"input", "Hi"}, {"stream", true}};
    answer = server.client(kTestApiKey).Post("/v1/responses", body.dump(), kJsonType)->body;
  });
  ASSERT_TRUE(server.engine().wait_for_active(1, 10));
  server.engine().step();
  server.engine().cancel(1);
  server.engine().step();
  client.join();
  SseStream sse = parse_sse(answer);
  ASSERT_FALSE(sse.events.empty()) << answer;
  EXPECT_EQ(sse.events.back(), "response.failed");
  json failed = json::parse(sse.data.back());
  EXPECT_EQ(failed["response"]["status"], "failed");
  EXPECT_EQ(failed["response"]["error"]["code"], "aborted");
}

TEST(ResponsesHttp, PreviousResponseIdContinuesTheStoredConversation) {
  TestServer server(test_config(), {});
  json first = post_responses(server, {{"instructions", "Be brief."}, {"input", "Say hi"}});
  json second = post_responses(server, {{"input", "And again"}, {"previous_response_id", first["id"]}});
  EXPECT_EQ(second["previous_response_id"], first["id"]);
  // The instructions are not carried over; the first turn, its answer and the new input are.
  const std::string prompt = server.text().detokenize(server.engine().submitted().at(1).prompt_tokens);
  EXPECT_EQ(prompt.find("system:"), std::string::npos) << prompt;
  const size_t hi = prompt.find("user: Say hi");
  const size_t reply = prompt.find("assistant: " + kResponsesReply);
  const size_t again = prompt.find("user: And again");
  ASSERT_NE(hi, std::string::npos) << prompt;
  ASSERT_NE(reply, std::string::npos) << prompt;
  ASSERT_NE(again, std::string::npos) << prompt;
  EXPECT_LT(hi, reply);
  EXPECT_LT(reply, again);
  // A streamed answer is kept too, and a chain goes on.
  std::vector<std::pair<std::string, json>> events =
      stream_events(server, {{"input", "Third"}, {"previous_response_id", second["id"]}});
  const json third = events.back().second["response"];
  post_responses(server, {{"input", "Fourth"}, {"previous_response_id", third["id"]}});
  const std::string last = server.text().detokenize(server.engine().submitted().at(3).prompt_tokens);
  EXPECT_NE(last.find("user: Third"), std::string::npos) << last;
  EXPECT_NE(last.find("user: And again"), std::string::npos) << last;
}

TEST(ResponsesHttp, AnUnknownOrUnstoredPreviousResponseIs404NamingIt) {
  TestServer server(test_config(), {});
  json unstored = post_responses(server, {{"input", "Say hi"}, {"store", false}});
  EXPECT_EQ(unstored["store"], false);
  for (const std::string& id : {std::string("resp_unknown"), unstored["id"].get<std::string>()}) {
    json body = {{"input", "x"}, {"previous_response_id", id}};
    auto res = server.client(kTestApiKey).Post("/v1/responses", body.dump(), kJsonType);
    EXPECT_EQ(res->status, 404) << res->body;
    json error = json::parse(res->body)["error"];
    EXPECT_NE(error["message"].get<std::string>().find(id), std::string::npos) << error;
  }
}

TEST(ResponsesHttp, AZeroStoreKeepsNothing) {
  ServerConfig config = test_config();
  config.responses_store_mib = 0;
  TestServer server(config, {});
  json first = post_responses(server, {{"input", "Say hi"}});
  json body = {{"input", "x"}, {"previous_response_id", first["id"]}};
  EXPECT_EQ(server.client(kTestApiKey).Post("/v1/responses", body.dump(), kJsonType)->status, 404);
}

TEST(ResponsesHttp, AKeptAnswerIsRetrievedAsItWasAnsweredAndDeletedById) {
  TestServer server(test_config(), {});
  auto client = server.client(kTestApiKey);
  const json first = post_responses(server, {{"instructions", "Be brief."}, {"input", "Say hi"}});
  const std::string id = first["id"];
  auto got = client.Get("/v1/responses/" + id);
  ASSERT_EQ(got->status, 200) << got->body;
  EXPECT_EQ(json::parse(got->body), first);
  // A streamed answer is kept as its response.completed event's response.
  const json streamed = stream_events(server, {{"input", "Again"}}).back().second["response"];
  got = client.Get("/v1/responses/" + streamed["id"].get<std::string>());
  ASSERT_EQ(got->status, 200) << got->body;
  EXPECT_EQ(json::parse(got->body), streamed);
  EXPECT_EQ(client.Get("/v1/responses/" + id + "?stream=true")->status, 400);

  auto deleted = client.Delete("/v1/responses/" + id);
  ASSERT_EQ(deleted->status, 200) << deleted->body;
  EXPECT_EQ(json::parse(deleted->body), (json{{"id", id}, {"object", "response"}, {"deleted", true}}));
  EXPECT_EQ(client.Get("/v1/responses/" + id)->status, 404);
  EXPECT_EQ(client.Delete("/v1/responses/" + id)->status, 404);
  json follow = {{"input", "x"}, {"previous_response_id", id}};
  EXPECT_EQ(client.Post("/v1/responses", follow.dump(), kJsonType)->status, 404);
}

TEST(ResponsesHttp, AnUnknownOrUnstoredResponseIs404NamingItAndOtherMethodsAre405) {
  TestServer server(test_config(), {});
  auto client = server.client(kTestApiKey);
  const json unstored = post_responses(server, {{"input", "Say hi"}, {"store", false}});
  for (const std::string& id : {std::string("resp_unknown"), unstored["id"].get<std::string>()}) {
    auto res = client.Get("/v1/responses/" + id);
    EXPECT_EQ(res->status, 404) << res->body;
    EXPECT_NE(json::parse(res->body)["error"]["message"].get<std::string>().find(id), std::string::npos);
    EXPECT_EQ(client.Delete("/v1/responses/" + id)->status, 404);
  }
  auto put = client.Put("/v1/responses/resp_x", "{}", kJsonType);
  EXPECT_EQ(put->status, 405);
  EXPECT_EQ(put->get_header_value("Allow"), "GET, HEAD, DELETE");
  EXPECT_EQ(server.client("wrong-key").Get("/v1/responses/" + unstored["id"].get<std::string>())->status, 401);
}

// A kept answer's input items: a string input as one user message, an array's messages with
// their text as parts and its function_call_output as sent, each with an id; paged by limit and
// after, last first unless order=asc; only the request's own input, not the continued turns.
TEST(ResponsesHttp, InputItemsListTheRequestsInputAPageAtATime) {
  TestServer server(test_config(), {});
  auto client = server.client(kTestApiKey);
  const json first = post_responses(server, {{"input", "Say hi"}});
  const std::string first_id = first["id"];
  auto got = client.Get("/v1/responses/" + first_id + "/input_items");
  ASSERT_EQ(got->status, 200) << got->body;
  json page = json::parse(got->body);
  EXPECT_EQ(page["object"], "list");
  EXPECT_EQ(page["has_more"], false);
  ASSERT_EQ(page["data"].size(), 1u);
  const json item = page["data"][0];
  EXPECT_EQ(item["type"], "message");
  EXPECT_EQ(item["role"], "user");
  EXPECT_EQ(item["content"], json::parse(R"([{"type": "input_text", "text": "Say hi"}])"));
  EXPECT_EQ(page["first_id"], item["id"]);
  EXPECT_EQ(page["last_id"], item["id"]);

  const json input = json::parse(R"([
      {"role": "user", "content": "one"},
      {"role": "assistant", "content": "two"},
      {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "three"}], "id": "msg_mine"},
      {"type": "function_call_output", "call_id": "call_1", "output": "four"}])");
  const json second = post_responses(server, {{"input", input}, {"previous_response_id", first_id}});
  const std::string base = "/v1/responses/" + second["id"].get<std::string>() + "/input_items";
  got = client.Get(base + "?order=asc");
  ASSERT_EQ(got->status, 200) << got->body;
  const json all = json::parse(got->body)["data"];
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0]["content"], json::parse(R"([{"type": "input_text", "text": "one"}])"));
  EXPECT_EQ(all[1]["content"], json::parse(R"([{"type": "output_text", "text": "two"}])"));
  EXPECT_EQ(all[2]["id"], "msg_mine");
  EXPECT_EQ(all[3]["type"], "function_call_output");
  EXPECT_EQ(all[3]["output"], "four");
  for (const json& i : all) EXPECT_TRUE(i["id"].is_string() && !i["id"].get<std::string>().empty()) << i.dump();

  // Two at a time, last first: items 4 and 3, then 2 and 1.
  got = client.Get(base + "?limit=2");
  page = json::parse(got->body);
  ASSERT_EQ(page["data"].size(), 2u);
  EXPECT_EQ(page["data"][0], all[3]);
  EXPECT_EQ(page["data"][1], all[2]);
  EXPECT_EQ(page["has_more"], true);
  got = client.Get(base + "?limit=2&after=" + page["last_id"].get<std::string>());
  page = json::parse(got->body);
  ASSERT_EQ(page["data"].size(), 2u);
  EXPECT_EQ(page["data"][0], all[1]);
  EXPECT_EQ(page["data"][1], all[0]);
  EXPECT_EQ(page["has_more"], false);

  for (const char* bad : {"?limit=0", "?limit=101", "?limit=x", "?order=up", "?after=msg_unknown"}) {
    auto res = client.Get(base + bad);
    EXPECT_EQ(res->status, 400) << bad << " " << res->body;
  }
  EXPECT_EQ(client.Get("/v1/responses/resp_unknown/input_items")->status, 404);
  auto post = client.Post(base, "{}", kJsonType);
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(post->get_header_value("Allow"), "GET, HEAD");
  ASSERT_EQ(client.Delete("/v1/responses/" + second["id"].get<std::string>())->status, 200);
  EXPECT_EQ(client.Get(base)->status, 404);
}

}  // namespace
}  // namespace strata::server
