// An assistant's earlier reasoning, sent back by OpenAI and Anthropic clients, reaches the model's
// template: gpt-oss's harmony template (testdata/gpt-oss.jinja) renders it as the analysis
// message before the tool call it led to, Qwen3's (testdata/qwen3.jinja) and GLM-4.5's
// (testdata/glm-4.6.jinja) as a <think> block. And
// OpenAI's reasoning_effort reaches gpt-oss's system message.
//
// The expected prompts are Python jinja2's renderings of the same templates (jinja2 3.1.6 on
// Python 3.11, as Hugging Face transformers sets it up: ImmutableSandboxedEnvironment with
// trim_blocks, lstrip_blocks and loopcontrols, tojson as json.dumps(ensure_ascii=False),
// raise_exception, strftime_now returning "2026-01-15"), given the messages chat_input() builds:
// the tool-call turn as {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1",
// "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}],
// "thinking": R, "reasoning_content": R}, the result as {"role": "tool", "tool_call_id":
// "call_1", "content": "sunny"}, with the request's tools and add_generation_prompt=True,
// printed once with json.dumps and pasted here.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "chat/chat_template.h"
#include "server/anthropic_request.h"
#include "server/engine_model.h"
#include "server/openai_request.h"

namespace strata::server {
namespace {


ChatTemplate template_from_testdata(const std::string& name) {
  std::ifstream in(std::string(STRATA_SOURCE_DIR) + "/src/chat/testdata/" + name);
  std::stringstream source;
  source << in.rdbuf();
  Result<ChatTemplate> t = ChatTemplate::Parse(source.str());
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(t).value() : ChatTemplate::ChatML();
}

// render_chat() on a fixed clock: gpt-oss's system message carries the date.
std::string render_on_fixed_date(const ChatTemplate& t, const PromptInput& prompt) {
  const ChatInput input = chat_input(t, template_traits(t), prompt);
  jinja::RenderOptions options;
  options.now_s = 1768478400;  // 2026-01-15 12:00 UTC
  Result<std::string> text = t.apply(input.messages, /*add_generation_prompt=*/true, "", "", input.context, options);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : std::string();
}

constexpr const char* kOpenAiTools = R"([{"type": "function", "function": {"name": "get_weather",
    "description": "Current weather", "parameters": {"type": "object",
    "properties": {"city": {"type": "string"}}, "required": ["city"]}}}])";
constexpr const char* kAnthropicTools = R"([{"name": "get_weather", "description": "Current weather",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}])";

// user -> assistant (reasoning + a call of get_weather) -> the call's result, and with `later`
// true a final answer (with its own reasoning) and a new user message after it.
PromptInput openai_round_trip(const std::string& reasoning_field, bool later) {
  RequestJson body = {{"tools", RequestJson::parse(kOpenAiTools)}};
  body["messages"] = RequestJson::array(
      {{{"role", "user"}, {"content", "Weather in Paris?"}},
       {{"role", "assistant"}, {"content", nullptr}, {reasoning_field, "Need the weather tool."},
        {"tool_calls", RequestJson::parse(R"([{"id": "call_1", "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}])")}},
       {{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "sunny"}}});
  if (later) {
    body["messages"].push_back({{"role", "assistant"}, {"content", "Sunny in Paris."}, {reasoning_field, "Report it."}});
    body["messages"].push_back({{"role", "user"}, {"content", "Thanks!"}});
  }
  Result<CompletionRequest> r = parse_chat_completion_request(body);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->prompt : PromptInput{};
}

PromptInput anthropic_round_trip(bool later) {
  RequestJson body = {{"max_tokens", 16}, {"tools", RequestJson::parse(kAnthropicTools)}};
  body["messages"] = RequestJson::parse(R"([
      {"role": "user", "content": "Weather in Paris?"},
      {"role": "assistant", "content": [
          {"type": "thinking", "thinking": "Need the weather tool.", "signature": "c2ln"},
          {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "sunny"}]}])");
  if (later) {
    body["messages"].push_back(RequestJson::parse(R"({"role": "assistant", "content": [
        {"type": "thinking", "thinking": "Report it.", "signature": ""}, {"type": "text", "text": "Sunny in Paris."}]})"));
    body["messages"].push_back({{"role", "user"}, {"content", "Thanks!"}});
  }
  Result<CompletionRequest> r = parse_anthropic_messages_request(body);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->prompt : PromptInput{};
}

constexpr const char* kGptOssHead =
    "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: "
    "2024-06\nCurrent date: 2026-01-15\n\nReasoning: medium\n\n# Valid channels: analysis, commentary, final. "
    "Channel must be included for every message.\nCalls to these tools must go to the commentary channel: "
    "'functions'.<|end|><|start|>developer<|message|># Tools\n\n## functions\n\nnamespace functions {\n\n"
    "// Current weather\ntype get_weather = (_: {\ncity: string,\n}) => any;\n\n} // namespace "
    "functions<|end|><|start|>user<|message|>Weather in Paris?<|end|>";
constexpr const char* kGptOssCall =
    "<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{\"city\": \"Paris\"}"
    "<|call|><|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>\"sunny\"<|end|>";

// jinja2: the analysis comes right before the call it led to, while no final answer follows it.
TEST(ReasoningPassback, GptOssRendersTheAnalysisBeforeTheToolCallAsJinja2Does) {
  const std::string expected = std::string(kGptOssHead) +
                               "<|start|>assistant<|channel|>analysis<|message|>Need the weather tool.<|end|>" +
                               kGptOssCall + "<|start|>assistant";
  const ChatTemplate t = template_from_testdata("gpt-oss.jinja");
  EXPECT_EQ(render_on_fixed_date(t, openai_round_trip("reasoning_content", false)), expected);
  EXPECT_EQ(render_on_fixed_date(t, openai_round_trip("reasoning", false)), expected);
  EXPECT_EQ(render_on_fixed_date(t, anthropic_round_trip(false)), expected);
}

// jinja2: once a final answer follows the call, the template drops every analysis before it.
TEST(ReasoningPassback, GptOssDropsTheAnalysisOnceAFinalAnswerFollowsAsJinja2Does) {
  const std::string expected = std::string(kGptOssHead) + kGptOssCall +
                               "<|start|>assistant<|channel|>final<|message|>Sunny in Paris.<|end|>"
                               "<|start|>user<|message|>Thanks!<|end|><|start|>assistant";
  const ChatTemplate t = template_from_testdata("gpt-oss.jinja");
  EXPECT_EQ(render_on_fixed_date(t, openai_round_trip("reasoning_content", true)), expected);
  EXPECT_EQ(render_on_fixed_date(t, anthropic_round_trip(true)), expected);
}

// Qwen3 reads reasoning_content: the tool-call turn after the last user query keeps its <think>
// block. (The test compares the conversation after the system message.)
TEST(ReasoningPassback, Qwen3RendersTheReasoningAsAThinkBlockAsJinja2Does) {
  const std::string conversation =
      "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n<think>\nNeed the weather tool.\n"
      "</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
      "<|im_end|>\n<|im_start|>user\n<tool_response>\nsunny\n</tool_response><|im_end|>\n<|im_start|>assistant\n";
  const ChatTemplate t = template_from_testdata("qwen3.jinja");
  for (const PromptInput& prompt : {openai_round_trip("reasoning_content", false), anthropic_round_trip(false)}) {
    const std::string text = render_on_fixed_date(t, prompt);
    ASSERT_GE(text.size(), std::string(conversation).size());
    EXPECT_EQ(text.substr(text.size() - std::string(conversation).size()), conversation) << text;
  }
}

// GLM-4.5/4.6 read reasoning_content too, and write the call's arguments (an object, whether the
// client sent a string or an object) as <arg_key>/<arg_value> pairs. Its tools' JSON keeps the
// client's key order, as jinja2 writes it, so the whole prompt is compared.
TEST(ReasoningPassback, GlmRendersTheReasoningAndTheCallsArgumentsAsJinja2Does) {
  const std::string expected =
      "[gMASK]<sop><|system|>\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
      "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
      "{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"Current weather\", "
      "\"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": "
      "[\"city\"]}}}\n</tools>\n\nFor each function call, output the function name and arguments within "
      "the following XML format:\n<tool_call>{function-name}\n<arg_key>{arg-key-1}</arg_key>\n"
      "<arg_value>{arg-value-1}</arg_value>\n<arg_key>{arg-key-2}</arg_key>\n<arg_value>{arg-value-2}</arg_value>\n"
      "...\n</tool_call>"
      "<|user|>\nWeather in Paris?<|assistant|>\n<think>Need the weather tool.</think>\n<tool_call>get_weather\n"
      "<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call><|observation|>\n<tool_response>\nsunny\n"
      "</tool_response><|assistant|>";
  const ChatTemplate t = template_from_testdata("glm-4.6.jinja");
  EXPECT_EQ(render_on_fixed_date(t, openai_round_trip("reasoning_content", false)), expected);
  EXPECT_EQ(render_on_fixed_date(t, anthropic_round_trip(false)), expected);
}

// gpt-oss's template writes a tool-call turn's text and reasoning to one analysis message and
// refuses a turn with both (jinja2 raises "Cannot pass both content and thinking"). Strata answers
// such turns itself (analysis, a preamble as text, the call), so the text is left out and the
// prompt is jinja2's rendering of the same turn without it; Qwen3's template keeps both.
TEST(ReasoningPassback, GptOssToolCallTurnWithTextAndReasoningKeepsTheReasoning) {
  RequestJson openai = {{"tools", RequestJson::parse(kOpenAiTools)}, {"messages", RequestJson::parse(R"([
      {"role": "user", "content": "Weather in Paris?"},
      {"role": "assistant", "content": "Checking.", "reasoning_content": "Need the weather tool.", "tool_calls": [
          {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
      {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}])")}};
  RequestJson anthropic = {{"max_tokens", 16}, {"tools", RequestJson::parse(kAnthropicTools)}, {"messages", RequestJson::parse(R"([
      {"role": "user", "content": "Weather in Paris?"},
      {"role": "assistant", "content": [
          {"type": "thinking", "thinking": "Need the weather tool.", "signature": ""},
          {"type": "text", "text": "Checking."},
          {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "sunny"}]}])")}};
  Result<CompletionRequest> from_openai = parse_chat_completion_request(openai);
  Result<CompletionRequest> from_anthropic = parse_anthropic_messages_request(anthropic);
  ASSERT_TRUE(from_openai.ok()) << from_openai.status().ToString();
  ASSERT_TRUE(from_anthropic.ok()) << from_anthropic.status().ToString();

  const std::string expected = std::string(kGptOssHead) +
                               "<|start|>assistant<|channel|>analysis<|message|>Need the weather tool.<|end|>" +
                               kGptOssCall + "<|start|>assistant";
  const ChatTemplate gpt_oss = template_from_testdata("gpt-oss.jinja");
  EXPECT_EQ(render_on_fixed_date(gpt_oss, from_openai->prompt), expected);
  EXPECT_EQ(render_on_fixed_date(gpt_oss, from_anthropic->prompt), expected);

  const ChatTemplate qwen3 = template_from_testdata("qwen3.jinja");
  for (const CompletionRequest* r : {&*from_openai, &*from_anthropic}) {
    const std::string text = render_on_fixed_date(qwen3, r->prompt);
    EXPECT_NE(text.find("<think>\nNeed the weather tool.\n</think>\n\nChecking.\n<tool_call>"), std::string::npos)
        << text;
  }
}

// OpenAI's reasoning_effort reaches gpt-oss's system message ("Reasoning: medium" when absent).
TEST(ReasoningEffort, GptOssSystemMessageCarriesTheRequestsEffort) {
  const ChatTemplate t = template_from_testdata("gpt-oss.jinja");
  const auto prompt_with = [&](const std::string& extra) {
    Result<CompletionRequest> r =
        parse_chat_completion_request(RequestJson::parse(R"({"messages": [{"role": "user", "content": "hi"}])" + extra + "}"));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? render_on_fixed_date(t, r->prompt) : std::string();
  };
  EXPECT_NE(prompt_with("").find("\nReasoning: medium\n"), std::string::npos) << prompt_with("");
  const std::string high = prompt_with(R"(, "reasoning_effort": "high")");
  EXPECT_NE(high.find("\nReasoning: high\n"), std::string::npos) << high;
  EXPECT_EQ(high.find("Reasoning: medium"), std::string::npos) << high;
  EXPECT_NE(prompt_with(R"(, "reasoning_effort": "minimal")").find("\nReasoning: low\n"), std::string::npos);
}

}  // namespace
}  // namespace strata::server
