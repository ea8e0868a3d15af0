#include "server/openai_request.h"

#include <gtest/gtest.h>

namespace strata::server {
namespace {

using nlohmann::json;

json chat_body() { return json::parse(R"({"model": "x", "messages": [{"role": "user", "content": "hi"}]})"); }

TEST(ChatCompletionRequest, DefaultsFollowOpenAi) {
  Result<CompletionRequest> r = parse_chat_completion_request(chat_body());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->prompt.kind, PromptInput::Kind::kChat);
  ASSERT_EQ(r->prompt.messages.size(), 1u);
  EXPECT_EQ(r->prompt.messages[0].role, "user");
  EXPECT_EQ(r->prompt.messages[0].content, "hi");
  EXPECT_EQ(r->generate.sampling.temperature, 1.0f);
  EXPECT_EQ(r->max_tokens, -1);
  EXPECT_FALSE(r->seed_given);
  EXPECT_FALSE(r->stream);
  EXPECT_EQ(r->model, "x");
}

TEST(ChatCompletionRequest, ReadsSamplingStopAndStreamFields) {
  json body = chat_body();
  body.update(json::parse(R"({
    "max_tokens": 10, "max_completion_tokens": 12, "temperature": 0, "top_p": 0.9, "top_k": 40,
    "min_p": 0.05, "seed": 7, "stop": ["\n", "END"], "frequency_penalty": 0.5,
    "presence_penalty": -0.5, "repetition_penalty": 1.1, "logit_bias": {"15": -100, "7": 2.5},
    "logprobs": true, "top_logprobs": 3, "ignore_eos": true, "stream": true,
    "stream_options": {"include_usage": true}, "n": 3, "user": "ignored", "tools": []})"));
  Result<CompletionRequest> r = parse_chat_completion_request(body);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const SamplingParams& s = r->generate.sampling;
  EXPECT_EQ(r->max_tokens, 12);  // max_completion_tokens wins
  EXPECT_EQ(s.temperature, 0.0f);
  EXPECT_EQ(s.top_p, 0.9f);
  EXPECT_EQ(s.top_k, 40);
  EXPECT_EQ(s.min_p, 0.05f);
  EXPECT_EQ(s.seed, 7u);
  EXPECT_TRUE(r->seed_given);
  EXPECT_EQ(r->generate.stop, (std::vector<std::string>{"\n", "END"}));
  EXPECT_EQ(s.frequency_penalty, 0.5f);
  EXPECT_EQ(s.presence_penalty, -0.5f);
  EXPECT_EQ(s.repeat_penalty, 1.1f);
  ASSERT_EQ(s.logit_bias.size(), 2u);
  EXPECT_EQ(s.logit_bias[0], (std::pair<int32_t, float>{15, -100.0f}));
  EXPECT_EQ(s.logit_bias[1], (std::pair<int32_t, float>{7, 2.5f}));
  EXPECT_TRUE(s.logprobs);
  EXPECT_EQ(s.n_top_logprobs, 3);
  EXPECT_TRUE(r->generate.ignore_eos);
  EXPECT_TRUE(r->stream);
  EXPECT_TRUE(r->include_usage);
  EXPECT_EQ(r->n_choices, 3);
}

TEST(ChatCompletionRequest, OneChoiceUnlessNSaysMore) {
  Result<CompletionRequest> r = parse_chat_completion_request(chat_body());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->n_choices, 1);
}

TEST(ChatCompletionRequest, ContentPartsAreJoinedAndDeveloperIsSystem) {
  json body = json::parse(R"({"messages": [
      {"role": "developer", "content": "be brief"},
      {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
      {"role": "assistant", "content": null}]})");
  Result<CompletionRequest> r = parse_chat_completion_request(body);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->prompt.messages[0].role, "system");
  EXPECT_EQ(r->prompt.messages[1].content, "ab");
  EXPECT_EQ(r->prompt.messages[2].content, "");
}

TEST(ChatCompletionRequest, ToolsAndToolHistoryReachTheTemplateFields) {
  json body = json::parse(R"({"messages": [
      {"role": "user", "content": "Weather in Paris?"},
      {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
          "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
      {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}],
    "tools": [{"type": "function", "function": {"name": "get_weather", "description": "d",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
    "tool_choice": "auto", "parallel_tool_calls": true})");
  Result<CompletionRequest> r = parse_chat_completion_request(body);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->parse_tool_calls);
  ASSERT_EQ(r->prompt.tools.size(), 1u);
  EXPECT_EQ(r->prompt.tools[0]["function"]["name"], "get_weather");
  EXPECT_EQ(r->prompt.tools[0]["function"]["parameters"]["type"], "object");
  ASSERT_EQ(r->prompt.messages.size(), 3u);
  const json& call = r->prompt.messages[1].extra["tool_calls"][0];
  EXPECT_EQ(call["id"], "call_1");
  EXPECT_EQ(call["function"]["name"], "get_weather");
  EXPECT_EQ(call["function"]["arguments"], json({{"city", "Paris"}}));  // parsed for tojson
  EXPECT_EQ(r->prompt.messages[2].role, "tool");
  EXPECT_EQ(r->prompt.messages[2].content, "sunny");
  EXPECT_EQ(r->prompt.messages[2].extra["tool_call_id"], "call_1");
}

TEST(ChatCompletionRequest, ToolChoiceNoneWithholdsToolsAndANameNarrowsThem) {
  json body = chat_body();
  body["tools"] = json::parse(R"([{"type": "function", "function": {"name": "a"}},
                                   {"type": "function", "function": {"name": "b"}}])");
  body["tool_choice"] = "none";
  Result<CompletionRequest> none = parse_chat_completion_request(body);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->prompt.tools.is_null());
  EXPECT_FALSE(none->parse_tool_calls);
  body["tool_choice"] = json::parse(R"({"type": "function", "function": {"name": "b"}})");
  Result<CompletionRequest> named = parse_chat_completion_request(body);
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  ASSERT_EQ(named->prompt.tools.size(), 1u);
  EXPECT_EQ(named->prompt.tools[0]["function"]["name"], "b");
  EXPECT_TRUE(named->parse_tool_calls);
}

TEST(ChatCompletionRequest, AssistantReasoningIsCarriedUnderEitherName) {
  Result<CompletionRequest> r = parse_chat_completion_request(json::parse(R"({"messages": [
      {"role": "user", "content": "hi"},
      {"role": "assistant", "content": "a", "reasoning_content": "thought a"},
      {"role": "assistant", "content": "b", "reasoning": "thought b"},
      {"role": "assistant", "content": "c", "reasoning": "old name", "reasoning_content": "thought c"},
      {"role": "assistant", "content": "d", "reasoning_content": null},
      {"role": "assistant", "content": "e", "reasoning_content": ""}]})"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::vector<ChatTurn>& m = r->prompt.messages;
  ASSERT_EQ(m.size(), 6u);
  EXPECT_FALSE(m[0].reasoning.has_value());
  EXPECT_EQ(m[1].reasoning, "thought a");
  EXPECT_EQ(m[2].reasoning, "thought b");
  EXPECT_EQ(m[3].reasoning, "thought c");  // reasoning_content, what this server answers, wins
  EXPECT_FALSE(m[4].reasoning.has_value());
  EXPECT_EQ(m[5].reasoning, "");
}

TEST(ChatCompletionRequest, ReasoningEffortBecomesATemplateVariable) {
  const auto effort_of = [](const std::string& body) {
    Result<CompletionRequest> r = parse_chat_completion_request(json::parse(body));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return std::string();
    const json& kwargs = r->prompt.template_kwargs;
    return kwargs.contains("reasoning_effort") ? kwargs["reasoning_effort"].get<std::string>() : "(absent)";
  };
  const std::string messages = R"("messages": [{"role": "user", "content": "hi"}])";
  EXPECT_EQ(effort_of("{" + messages + "}"), "(absent)");
  EXPECT_EQ(effort_of("{" + messages + R"(, "reasoning_effort": "high"})"), "high");
  EXPECT_EQ(effort_of("{" + messages + R"(, "reasoning_effort": "minimal"})"), "low");
  EXPECT_EQ(effort_of("{" + messages + R"(, "reasoning_effort": "xhigh"})"), "high");
  // "none" switches thinking off and sets no effort; the client's own enable_thinking wins.
  EXPECT_EQ(effort_of("{" + messages + R"(, "reasoning_effort": "none"})"), "(absent)");
  Result<CompletionRequest> none = parse_chat_completion_request(json::parse("{" + messages + R"(, "reasoning_effort": "none"})"));
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->prompt.template_kwargs["enable_thinking"], false);
  none = parse_chat_completion_request(json::parse(
      "{" + messages + R"(, "reasoning_effort": "none", "chat_template_kwargs": {"enable_thinking": true}})"));
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->prompt.template_kwargs["enable_thinking"], true);
  // Beside other template variables; chat_template_kwargs' own value wins.
  EXPECT_EQ(effort_of("{" + messages +
                      R"(, "reasoning_effort": "low", "chat_template_kwargs": {"enable_thinking": true}})"),
            "low");
  EXPECT_EQ(effort_of("{" + messages +
                      R"(, "reasoning_effort": "low", "chat_template_kwargs": {"reasoning_effort": "high"}})"),
            "high");
}

TEST(TextCompletionRequest, RefusesTools) {
  Result<CompletionRequest> r = parse_text_completion_request(
      json::parse(R"({"prompt": "x", "tools": [{"type": "function", "function": {"name": "f"}}]})"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kUnsupported);
}

// Each bad body must fail with a message that names the field.
struct BadChat {
  const char* body;
  Code code;
  const char* message_part;
};

class ChatCompletionRejects : public ::testing::TestWithParam<BadChat> {};

TEST_P(ChatCompletionRejects, NamesTheProblem) {
  Result<CompletionRequest> r = parse_chat_completion_request(json::parse(GetParam().body));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), GetParam().code);
  EXPECT_NE(r.status().message().find(GetParam().message_part), std::string::npos)
      << r.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, ChatCompletionRejects,
    ::testing::Values(
        BadChat{R"({"messages": []})", Code::kInvalidArgument, "'messages' must be a non-empty"},
        BadChat{R"({})", Code::kInvalidArgument, "'messages'"},
        BadChat{R"({"messages": "hi"})", Code::kInvalidArgument, "'messages'"},
        BadChat{R"({"messages": [{"content": "hi"}]})", Code::kInvalidArgument, "'messages[0].role'"},
        BadChat{R"({"messages": [{"role": "tool", "content": "x"}]})", Code::kInvalidArgument,
                "'messages[0].tool_call_id'"},
        BadChat{R"({"messages": [{"role": "function", "content": "x"}]})", Code::kUnsupported,
                "'messages[0].role'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x", "tool_calls": []}]})",
                Code::kInvalidArgument, "only allowed on assistant"},
        BadChat{R"({"messages": [{"role": "assistant", "tool_calls": [{"id": "c", "function": {}}]}]})",
                Code::kInvalidArgument, "'messages[0].tool_calls[0].function.name'"},
        BadChat{R"({"messages": [{"role": "assistant", "tool_calls": [{"function": {"name": "f"}}]}]})",
                Code::kInvalidArgument, "'messages[0].tool_calls[0]'"},
        BadChat{R"({"messages": [{"role": "user", "content": 5}]})", Code::kInvalidArgument,
                "'messages[0].content'"},
        BadChat{R"({"messages": [{"role": "assistant", "content": "x", "reasoning_content": ["a"]}]})",
                Code::kInvalidArgument, "'messages[0].reasoning_content' must be a string"},
        BadChat{R"({"messages": [{"role": "assistant", "content": "x", "reasoning": {"effort": "high"}}]})",
                Code::kInvalidArgument, "'messages[0].reasoning' must be a string"},
        BadChat{R"({"messages": [{"role": "user", "content": "x", "reasoning_content": "y"}]})",
                Code::kInvalidArgument, "'messages[0].reasoning_content' is only allowed on assistant"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "reasoning_effort": "extreme"})",
                Code::kInvalidArgument,
                "'reasoning_effort' must be \"none\", \"minimal\", \"low\", \"medium\", \"high\" or \"xhigh\""},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "reasoning_effort": 3})",
                Code::kInvalidArgument, "'reasoning_effort' must be"},
        BadChat{R"({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]})",
                Code::kUnsupported, "'messages[0].content[0]'"},
        BadChat{R"({"messages": [{"role": "user", "content": [{"type": 5}]}]})", Code::kUnsupported,
                "'messages[0].content[0]'"},
        BadChat{R"({"messages": [{"role": "user", "content": [{"type": "text", "text": 1}]}]})",
                Code::kInvalidArgument, "'messages[0].content[0].text'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "temperature": "hot"})",
                Code::kInvalidArgument, "'temperature'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "max_tokens": 0})",
                Code::kInvalidArgument, "'max_tokens'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "n": 129})", Code::kInvalidArgument, "'n'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "n": 0})", Code::kInvalidArgument, "'n'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "n": 2, "best_of": 3})", Code::kUnsupported,
                "'best_of' other than 'n' (2) is not supported, got 3"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "best_of": 2})", Code::kUnsupported, "'best_of'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "logit_bias": {"abc": 1}})",
                Code::kInvalidArgument, "'logit_bias' key"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "logit_bias": {"3": 200}})",
                Code::kInvalidArgument, "[-100, 100]"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "top_logprobs": 2})",
                Code::kInvalidArgument, "'top_logprobs' needs 'logprobs'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "stop": [1]})",
                Code::kInvalidArgument, "'stop'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "stream": "yes"})",
                Code::kInvalidArgument, "'stream'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function"}]})",
                Code::kInvalidArgument, "'tools[0].function.name'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "code"}]})",
                Code::kUnsupported, "'tools[0]'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function",
                   "function": {"name": "f", "parameters": "x"}}]})",
                Code::kInvalidArgument, "'tools[0].function.parameters'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "tool_choice": "required"})",
                Code::kInvalidArgument, "needs 'tools'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "tool_choice": "sometimes",
                   "tools": [{"type": "function", "function": {"name": "f"}}]})",
                Code::kInvalidArgument, "'tool_choice' must be"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "tool_choice":
                   {"type": "function", "function": {"name": "g"}},
                   "tools": [{"type": "function", "function": {"name": "f"}}]})",
                Code::kInvalidArgument, "\"g\", which is not in 'tools'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "functions": [{"name": "f"}]})",
                Code::kUnsupported, "'functions'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "response_format": {"type": "json_schema",
                   "json_schema": {"name": "n", "schema": {"type": "object", "patternProperties": {}}}}})",
                Code::kInvalidArgument, "unsupported keyword 'patternProperties'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "response_format": {"type": "xml"}})",
                Code::kInvalidArgument, "'response_format.type'"},
        BadChat{R"({"messages": [{"role": "user", "content": "x"}], "grammar": "root ::= nothing"})",
                Code::kInvalidArgument, "'grammar': grammar: rule 'nothing'"}));

TEST(TextCompletionRequest, AcceptsStringTokenAndSingletonPrompts) {
  Result<CompletionRequest> text = parse_text_completion_request(json::parse(R"({"prompt": "Once"})"));
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->prompt.kind, PromptInput::Kind::kText);
  EXPECT_EQ(text->prompt.text, "Once");
  Result<CompletionRequest> one = parse_text_completion_request(json::parse(R"({"prompt": ["Once"]})"));
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->prompt.text, "Once");
  Result<CompletionRequest> ids = parse_text_completion_request(json::parse(R"({"prompt": [1, 2, 3]})"));
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(ids->prompt.kind, PromptInput::Kind::kTokens);
  EXPECT_EQ(ids->prompt.tokens, (std::vector<int32_t>{1, 2, 3}));
  Result<CompletionRequest> nested = parse_text_completion_request(json::parse(R"({"prompt": [[4, 5]]})"));
  ASSERT_TRUE(nested.ok());
  EXPECT_EQ(nested->prompt.tokens, (std::vector<int32_t>{4, 5}));
}

TEST(TextCompletionRequest, LogprobsIsTheNumberOfAlternatives) {
  Result<CompletionRequest> r =
      parse_text_completion_request(json::parse(R"({"prompt": "x", "logprobs": 2})"));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->generate.sampling.logprobs);
  EXPECT_EQ(r->generate.sampling.n_top_logprobs, 2);
}

TEST(TextCompletionRequest, SpeculativeIsOnOffOrADraftLength) {
  auto spec = [](const char* value) {
    return parse_text_completion_request(json::parse(std::string(R"({"prompt": "x", "speculative": )") + value + "}"));
  };
  EXPECT_EQ(parse_text_completion_request(json::parse(R"({"prompt": "x"})"))->generate.speculative_tokens, -1);
  EXPECT_EQ(spec("true")->generate.speculative_tokens, -1);
  EXPECT_EQ(spec("false")->generate.speculative_tokens, 0);
  EXPECT_EQ(spec("3")->generate.speculative_tokens, 3);
  for (const char* bad : {"-1", "33", "\"yes\"", "1.5"}) {
    Result<CompletionRequest> r = spec(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("'speculative'"), std::string::npos) << r.status().message();
  }
}

TEST(TextCompletionRequest, RejectsWhatItCannotHonour) {
  EXPECT_EQ(parse_text_completion_request(json::parse(R"({})")).status().message(), "'prompt' is required");
  EXPECT_EQ(parse_text_completion_request(json::parse(R"({"prompt": ["a", "b"]})")).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(parse_text_completion_request(json::parse(R"({"prompt": [1, -2]})")).status().code(),
            Code::kInvalidArgument);
  // An id that would wrap to a small int32 is refused, not truncated.
  EXPECT_EQ(parse_text_completion_request(json::parse(R"({"prompt": [4294967300]})")).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(parse_text_completion_request(json::parse(R"({"prompt": "x", "echo": true})")).status().code(),
            Code::kUnsupported);
  EXPECT_EQ(parse_text_completion_request(json::parse(R"({"prompt": "x", "suffix": "y"})")).status().code(),
            Code::kUnsupported);
  EXPECT_EQ(parse_text_completion_request(json::parse(R"({"prompt": "x", "best_of": 3})")).status().code(),
            Code::kUnsupported);
}

}  // namespace
}  // namespace strata::server
