#include "server/output_constraint.h"

#include <gtest/gtest.h>

#include "grammar/gbnf_parser.h"
#include "grammar/grammar_matcher.h"
#include "server/anthropic_request.h"
#include "server/openai_request.h"
#include "server/tool_call_parser.h"

namespace strata::server {
namespace {

using nlohmann::json;

bool constraint_matches(const CompletionRequest& r, const std::string& text) {
  if (!r.generate.constraint) return false;
  grammar::GrammarMatcher m(r.generate.constraint);
  return m.accept(text) && m.accepting();
}

const char* kUser = R"("messages": [{"role": "user", "content": "x"}])";

// Parsed as the server parses bodies: objects keep the client's key order.
Result<CompletionRequest> chat(const std::string& fields) {
  return parse_chat_completion_request(RequestJson::parse("{" + std::string(kUser) + ", " + fields + "}"));
}

TEST(OutputConstraint, JsonObjectModeAcceptsAnyObject) {
  Result<CompletionRequest> r = chat(R"("response_format": {"type": "json_object"})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(constraint_matches(*r, R"({"a": [1, {"b": null}]})"));
  EXPECT_FALSE(constraint_matches(*r, "[1]"));
}

TEST(OutputConstraint, JsonSchemaModeFollowsTheSchema) {
  Result<CompletionRequest> r = chat(R"("response_format": {"type": "json_schema", "json_schema": {"name": "p",
      "strict": true, "schema": {"type": "object", "properties": {"age": {"type": "integer", "minimum": 0}},
      "required": ["age"], "additionalProperties": false}}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(constraint_matches(*r, R"({"age": 7})"));
  EXPECT_FALSE(constraint_matches(*r, R"({"age": -7})"));
  // A thinking model answers without a reasoning block unless the client asked otherwise.
  EXPECT_EQ(r->prompt.template_kwargs["enable_thinking"], false);
  Result<CompletionRequest> thinking = chat(R"("response_format": {"type": "json_object"},
      "chat_template_kwargs": {"enable_thinking": true})");
  ASSERT_TRUE(thinking.ok());
  EXPECT_EQ(thinking->prompt.template_kwargs["enable_thinking"], true);
}

// Properties are written in the order the client's schema lists them, not sorted by name.
TEST(OutputConstraint, JsonSchemaModeKeepsTheClientsPropertyOrder) {
  Result<CompletionRequest> r = chat(R"("response_format": {"type": "json_schema", "json_schema": {"name": "p",
      "schema": {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
      "required": ["name", "age"]}}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(constraint_matches(*r, R"({"name": "Ann", "age": 7})"));
  EXPECT_FALSE(constraint_matches(*r, R"({"age": 7, "name": "Ann"})"));
}

TEST(OutputConstraint, TextFormatAndNoFormatLeaveTheOutputFree) {
  Result<CompletionRequest> r = chat(R"("response_format": {"type": "text"})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->generate.constraint, nullptr);
}

TEST(OutputConstraint, GbnfGrammarOnCompletions) {
  Result<CompletionRequest> r = parse_text_completion_request(
      json::parse(R"({"prompt": "x", "grammar": "root ::= (\"yes\" | \"no\") \".\""})"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(constraint_matches(*r, "no."));
  EXPECT_FALSE(constraint_matches(*r, "maybe."));
  EXPECT_FALSE(parse_text_completion_request(
                   json::parse(R"({"prompt": "x", "grammar": "root ::= \"a\"", "response_format": {"type": "json_object"}})"))
                   .ok());
}

const char* kToolsMember = R"("tools": [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
        "properties": {"city": {"type": "string", "maxLength": 20}}, "required": ["city"]}}},
    {"type": "function", "function": {"name": "now"}}])";

TEST(OutputConstraint, RequiredToolChoiceForcesOneParsableCall) {
  Result<CompletionRequest> r = chat(std::string(kToolsMember) + R"(, "tool_choice": "required")");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::string call = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
  EXPECT_TRUE(constraint_matches(*r, call));
  EXPECT_TRUE(constraint_matches(*r, "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>"));
  EXPECT_FALSE(constraint_matches(*r, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {}}\n</tool_call>"));
  EXPECT_FALSE(constraint_matches(*r, "Sure!"));
  ParsedOutput parsed = parse_tool_calls(call);
  ASSERT_EQ(parsed.calls.size(), 1u);
  EXPECT_EQ(parsed.calls[0].name, "get_weather");
  EXPECT_EQ(parsed.calls[0].arguments_json, R"({"city":"Paris"})");
}

TEST(OutputConstraint, NamedToolChoiceForcesThatTool) {
  Result<CompletionRequest> r =
      chat(std::string(kToolsMember) + R"(, "tool_choice": {"type": "function", "function": {"name": "now"}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(constraint_matches(*r, "<tool_call>\n{\"name\": \"now\", \"arguments\": {\"x\": 1}}\n</tool_call>"));
  EXPECT_FALSE(constraint_matches(*r, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"P\"}}\n</tool_call>"));
  Result<CompletionRequest> free = chat(std::string(kToolsMember) + R"(, "tool_choice": "auto")");
  ASSERT_TRUE(free.ok());
  EXPECT_EQ(free->generate.constraint, nullptr);
}

TEST(OutputConstraint, ForcedCallArgumentsKeepTheParametersOrder) {
  Result<CompletionRequest> r = chat(R"("tools": [{"type": "function", "function": {"name": "convert",
      "parameters": {"type": "object", "properties": {"value": {"type": "number"}, "from": {"type": "string"},
      "to": {"type": "string"}}, "required": ["value", "from", "to"]}}}], "tool_choice": "required")");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::string head = "<tool_call>\n{\"name\": \"convert\", \"arguments\": ";
  EXPECT_TRUE(constraint_matches(*r, head + R"({"value": 3, "from": "m", "to": "ft"}})" + "\n</tool_call>"));
  EXPECT_FALSE(constraint_matches(*r, head + R"({"from": "m", "to": "ft", "value": 3}})" + "\n</tool_call>"));
}

TEST(OutputConstraint, AnthropicAnyAndNamedToolChoicesForceACall) {
  const std::string tools = R"("max_tokens": 9, "messages": [{"role": "user", "content": "x"}],
      "tools": [{"name": "lookup", "input_schema": {"type": "object", "properties": {"q": {"type": "string"}},
      "required": ["q"]}}])";
  for (const char* choice : {R"({"type": "any"})", R"({"type": "tool", "name": "lookup"})"}) {
    Result<CompletionRequest> r =
        parse_anthropic_messages_request(json::parse("{" + tools + ", \"tool_choice\": " + choice + "}"));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(constraint_matches(*r, "<tool_call>\n{\"name\": \"lookup\", \"arguments\": {\"q\": \"z\"}}\n</tool_call>"));
  }
}

TEST(OutputConstraint, ForcedCallAndResponseFormatTogetherAreRefused) {
  Result<CompletionRequest> r =
      chat(std::string(kToolsMember) + R"(, "tool_choice": "required", "response_format": {"type": "json_object"})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("tool_choice"), std::string::npos);
}

}  // namespace
}  // namespace strata::server
