// Responses API bodies read as the chat completions they ask for, and what is refused.
#include "server/responses_request.h"

#include <gtest/gtest.h>

#include <string>

namespace strata::server {
namespace {

RequestJson body_of(const char* text) { return RequestJson::parse(text); }

TEST(ResponsesRequest, InstructionsAndAStringInputAreASystemAndAUserMessage) {
  Result<RequestJson> chat = responses_to_chat_body(body_of(
      R"({"model": "m", "instructions": "Be brief.", "input": "Hi", "max_output_tokens": 9, "temperature": 0.5})"));
  ASSERT_TRUE(chat.ok()) << chat.status().ToString();
  EXPECT_EQ((*chat)["messages"], RequestJson::parse(R"([{"role": "system", "content": "Be brief."},
                                                        {"role": "user", "content": "Hi"}])"));
  EXPECT_EQ((*chat)["max_completion_tokens"], 9);
  EXPECT_EQ((*chat)["temperature"], 0.5);
  EXPECT_EQ((*chat)["model"], "m");
}

TEST(ResponsesRequest, InputItemsBecomeTurnsWithCallsResultsAndReasoning) {
  Result<RequestJson> chat = responses_to_chat_body(body_of(R"({"input": [
      {"role": "user", "content": [{"type": "input_text", "text": "Weather in "}, {"type": "input_text", "text": "Paris?"}]},
      {"type": "reasoning", "id": "rs_1", "summary": [], "content": [{"type": "reasoning_text", "text": "Look it up."}]},
      {"type": "function_call", "call_id": "call_1", "name": "weather", "arguments": "{\"city\":\"Paris\"}"},
      {"type": "function_call", "call_id": "call_2", "name": "time", "arguments": "{}"},
      {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
      {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Sunny."}]},
      {"role": "developer", "content": "Answer in French."}]})"));
  ASSERT_TRUE(chat.ok()) << chat.status().ToString();
  EXPECT_EQ((*chat)["messages"], RequestJson::parse(R"([
      {"role": "user", "content": [{"type": "text", "text": "Weather in "}, {"type": "text", "text": "Paris?"}]},
      {"role": "assistant", "content": null, "reasoning_content": "Look it up.", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}},
        {"id": "call_2", "type": "function", "function": {"name": "time", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
      {"role": "assistant", "content": [{"type": "text", "text": "Sunny."}]},
      {"role": "developer", "content": "Answer in French."}])"));
}

TEST(ResponsesRequest, FlatFunctionToolsFormatAndEffortTakeTheChatForms) {
  Result<RequestJson> chat = responses_to_chat_body(body_of(R"({"input": "x",
      "tools": [{"type": "function", "name": "f", "description": "d", "parameters": {"type": "object"}, "strict": true}],
      "tool_choice": {"type": "function", "name": "f"},
      "text": {"format": {"type": "json_schema", "name": "s", "schema": {"type": "object"}, "strict": true}},
      "reasoning": {"effort": "low"}})"));
  ASSERT_TRUE(chat.ok()) << chat.status().ToString();
  EXPECT_EQ((*chat)["tools"], RequestJson::parse(R"([{"type": "function", "function":
      {"name": "f", "description": "d", "parameters": {"type": "object"}, "strict": true}}])"));
  EXPECT_EQ((*chat)["tool_choice"], RequestJson::parse(R"({"type": "function", "function": {"name": "f"}})"));
  EXPECT_EQ((*chat)["response_format"], RequestJson::parse(R"({"type": "json_schema", "json_schema":
      {"name": "s", "schema": {"type": "object"}, "strict": true}})"));
  EXPECT_EQ((*chat)["reasoning_effort"], "low");
}

TEST(ResponsesRequest, TheParsedRequestIsTheChatRequestsAndEchoesTheSettings) {
  Result<ResponsesRequest> r = parse_responses_request(body_of(
      R"({"input": "Hi", "instructions": "Be brief.", "max_output_tokens": 7, "top_p": 0.5, "stream": true,
          "tools": [{"type": "function", "name": "f"}]})"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->completion.max_tokens, 7);
  EXPECT_TRUE(r->completion.stream);
  EXPECT_TRUE(r->completion.parse_tool_calls);
  EXPECT_EQ(r->completion.prompt.messages.size(), 2u);
  EXPECT_EQ(r->echo["instructions"], "Be brief.");
  EXPECT_EQ(r->echo["max_output_tokens"], 7);
  EXPECT_EQ(r->echo["top_p"], 0.5);
  EXPECT_EQ(r->echo["tools"][0]["name"], "f");
  EXPECT_EQ(r->echo["tool_choice"], "auto");
}

TEST(ResponsesRequest, APreviousResponsesTurnsComeAfterTheInstructionsAndBeforeTheInput) {
  const RequestJson stored = RequestJson::parse(R"([{"role": "user", "content": "Hi"},
                                                   {"role": "assistant", "content": "Hello!"}])");
  std::string asked;
  PreviousLookup lookup = [&](const std::string& id) -> std::optional<RequestJson> {
    asked = id;
    return stored;
  };
  Result<ResponsesRequest> r = parse_responses_request(
      body_of(R"({"previous_response_id": "resp_7", "instructions": "Be brief.", "input": "And you?", "store": false})"),
      lookup);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(asked, "resp_7");
  const std::vector<ChatTurn>& turns = r->completion.prompt.messages;
  ASSERT_EQ(turns.size(), 4u);
  EXPECT_EQ(turns[0].role, "system");
  EXPECT_EQ(turns[1].content, "Hi");
  EXPECT_EQ(turns[2].content, "Hello!");
  EXPECT_EQ(turns[3].content, "And you?");
  // The conversation kept with the answer leaves the instructions out, as OpenAI does.
  EXPECT_EQ(r->conversation, RequestJson::parse(R"([{"role": "user", "content": "Hi"},
      {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "And you?"}])"));
  EXPECT_FALSE(r->store);
  EXPECT_EQ(r->echo["previous_response_id"], "resp_7");
  EXPECT_EQ(r->echo["store"], false);
}

struct BadResponses {
  const char* body;
  Code code;
  const char* message;
};

class ResponsesRequestErrors : public ::testing::TestWithParam<BadResponses> {};

TEST_P(ResponsesRequestErrors, NameTheField) {
  Result<ResponsesRequest> r = parse_responses_request(body_of(GetParam().body));
  ASSERT_FALSE(r.ok()) << GetParam().body;
  EXPECT_EQ(r.status().code(), GetParam().code) << r.status().ToString();
  EXPECT_NE(r.status().message().find(GetParam().message), std::string::npos) << r.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, ResponsesRequestErrors,
    ::testing::Values(
        BadResponses{R"({})", Code::kInvalidArgument, "'input' must be a string or a non-empty array"},
        BadResponses{R"({"input": []})", Code::kInvalidArgument, "'input'"},
        BadResponses{R"({"input": "x", "previous_response_id": "resp_1"})", Code::kNotFound,
                     "'previous_response_id': no response 'resp_1' is stored"},
        BadResponses{R"({"input": "x", "previous_response_id": 7})", Code::kInvalidArgument,
                     "'previous_response_id' must be a string"},
        BadResponses{R"({"input": "x", "store": "yes"})", Code::kInvalidArgument, "'store'"},
        BadResponses{R"({"input": "x", "background": true})", Code::kUnsupported, "'background'"},
        BadResponses{R"({"input": "x", "tools": [{"type": "web_search"}]})", Code::kUnsupported,
                     "'tools[0]': only function tools are supported"},
        BadResponses{R"({"input": [{"type": "image_generation_call"}]})", Code::kUnsupported, "'input[0]'"},
        BadResponses{R"({"input": "x", "tools": [{"type": "function"}]})", Code::kInvalidArgument,
                     "'tools[0].name' must be a non-empty string"},
        BadResponses{R"({"input": "x", "tools": [{"type": "function", "name": "f", "parameters": []}]})",
                     Code::kInvalidArgument, "'tools[0].parameters' must be a JSON schema object"},
        BadResponses{R"({"input": [{"role": "user", "content": [{"type": "input_image"}]}]})", Code::kUnsupported,
                     "'input[0].content[0]'"},
        BadResponses{R"({"input": [{"role": "robot", "content": "x"}]})", Code::kInvalidArgument, "'input[0].role'"},
        BadResponses{R"({"input": [{"type": "function_call", "name": "f", "arguments": "{}"}]})",
                     Code::kInvalidArgument, "'input[0].call_id' must be a string"},
        BadResponses{R"({"input": [{"type": "function_call_output", "call_id": "c"}]})", Code::kInvalidArgument,
                     "'input[0].output' is required"},
        BadResponses{R"({"input": "x", "max_output_tokens": 0})", Code::kInvalidArgument, "'max_output_tokens'"},
        BadResponses{R"({"input": "x", "instructions": 3})", Code::kInvalidArgument, "'instructions' must be a string"},
        BadResponses{R"({"input": "x", "text": {"format": "json"}})", Code::kInvalidArgument, "'text.format'"},
        BadResponses{R"({"input": "x", "temperature": 3})", Code::kInvalidArgument, "'temperature'"}));

}  // namespace
}  // namespace strata::server
