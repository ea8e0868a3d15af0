// Real models' chat templates rendering a system+user+assistant+user conversation, against
// renderings written out by hand from each model's documented prompt format.
#include "chat/chat_template.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace strata {
namespace {

std::string read_template(const std::string& name) {
  std::ifstream in(std::string(STRATA_SOURCE_DIR) + "/src/chat/testdata/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ChatTemplate load(const std::string& name) {
  std::string source = read_template(name);
  EXPECT_FALSE(source.empty()) << name;
  Result<ChatTemplate> t = ChatTemplate::Parse(source);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(t).value() : ChatTemplate::ChatML();
}

std::vector<ChatMessage> conversation() {
  return {{"system", "You are a helpful assistant.", nullptr},
          {"user", "Hello!", nullptr},
          {"assistant", "Hi there. How can I help?", nullptr},
          {"user", "What is 2+2?", nullptr}};
}

std::string apply_ok(const ChatTemplate& t, const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                     const std::string& bos, const std::string& eos, const nlohmann::json& extra = {}) {
  Result<std::string> out = t.apply(messages, add_generation_prompt, bos, eos, extra);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::string();
}

const char kQwen3Conversation[] =
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
    "<|im_start|>user\nHello!<|im_end|>\n"
    "<|im_start|>assistant\nHi there. How can I help?<|im_end|>\n"
    "<|im_start|>user\nWhat is 2+2?<|im_end|>\n"
    "<|im_start|>assistant\n";

// Gemma 3 has no system role: the system text opens the first user turn; the assistant is
// "model"; contents are trimmed.
TEST(ChatTemplateGemma3, FoldsSystemIntoFirstUserTurn) {
  ChatTemplate t = load("gemma3.jinja");
  EXPECT_EQ(apply_ok(t, conversation(), true, "<bos>", "<eos>"),
            "<bos><start_of_turn>user\nYou are a helpful assistant.\n\nHello!<end_of_turn>\n"
            "<start_of_turn>model\nHi there. How can I help?<end_of_turn>\n"
            "<start_of_turn>user\nWhat is 2+2?<end_of_turn>\n"
            "<start_of_turn>model\n");
  std::vector<ChatMessage> padded = {{"user", "  Hi \n", nullptr}};
  EXPECT_EQ(apply_ok(t, padded, false, "<bos>", "<eos>"), "<bos><start_of_turn>user\nHi<end_of_turn>\n");
}

TEST(ChatTemplateGemma3, RejectsRolesThatDoNotAlternate) {
  ChatTemplate t = load("gemma3.jinja");
  std::vector<ChatMessage> twice = {{"user", "a", nullptr}, {"user", "b", nullptr}};
  Result<std::string> out = t.apply(twice, true, "<bos>", "<eos>");
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().ToString().find("Conversation roles must alternate"), std::string::npos)
      << out.status().ToString();
}

TEST(ChatTemplateQwen3, RendersConversationWithGenerationPrompt) {
  ChatTemplate t = load("qwen3.jinja");
  EXPECT_EQ(apply_ok(t, conversation(), true, "", "<|im_end|>"), kQwen3Conversation);
}

TEST(ChatTemplateQwen3, EnableThinkingFalseAddsEmptyThinkBlock) {
  ChatTemplate t = load("qwen3.jinja");
  std::string expected = std::string(kQwen3Conversation) + "<think>\n\n</think>\n\n";
  EXPECT_EQ(apply_ok(t, conversation(), true, "", "<|im_end|>", {{"enable_thinking", false}}), expected);
  EXPECT_EQ(apply_ok(t, conversation(), true, "", "<|im_end|>", {{"enable_thinking", true}}), kQwen3Conversation);
}

TEST(ChatTemplateQwen3, WithoutGenerationPromptEndsAfterLastMessage) {
  ChatTemplate t = load("qwen3.jinja");
  std::string expected = kQwen3Conversation;
  expected.resize(expected.size() - std::string("<|im_start|>assistant\n").size());
  EXPECT_EQ(apply_ok(t, conversation(), false, "", "<|im_end|>"), expected);
}

TEST(ChatTemplateQwen3, DropsReasoningFromHistoryButKeepsItAfterLastQuery) {
  ChatTemplate t = load("qwen3.jinja");
  std::string thought = "<think>\nThe user greets me.\n</think>\n\nHi there.";
  std::vector<ChatMessage> earlier = {{"user", "Hello!", nullptr}, {"assistant", thought, nullptr},
                                      {"user", "Bye", nullptr}};
  EXPECT_EQ(apply_ok(t, earlier, true, "", ""),
            "<|im_start|>user\nHello!<|im_end|>\n"
            "<|im_start|>assistant\nHi there.<|im_end|>\n"
            "<|im_start|>user\nBye<|im_end|>\n"
            "<|im_start|>assistant\n");
  std::vector<ChatMessage> latest = {{"user", "Hello!", nullptr}, {"assistant", thought, nullptr}};
  EXPECT_EQ(apply_ok(t, latest, false, "", ""),
            "<|im_start|>user\nHello!<|im_end|>\n"
            "<|im_start|>assistant\n<think>\nThe user greets me.\n</think>\n\nHi there.<|im_end|>\n");
}

TEST(ChatTemplateQwen3, UsesReasoningContentField) {
  ChatTemplate t = load("qwen3.jinja");
  std::vector<ChatMessage> messages = {{"user", "Hi", nullptr},
                                       {"assistant", "Hello.", {{"reasoning_content", "\nBe brief.\n"}}}};
  EXPECT_EQ(apply_ok(t, messages, false, "", ""),
            "<|im_start|>user\nHi<|im_end|>\n"
            "<|im_start|>assistant\n<think>\nBe brief.\n</think>\n\nHello.<|im_end|>\n");
}

TEST(ChatTemplateQwen3, RendersToolsToolCallsAndToolResponses) {
  ChatTemplate t = load("qwen3.jinja");
  nlohmann::json tool = {{"type", "function"},
                         {"function", {{"name", "get_weather"}, {"parameters", {{"type", "object"}}}}}};
  nlohmann::json call = {{"tool_calls", {{{"function", {{"name", "get_weather"}, {"arguments", {{"city", "Paris"}}}}}}}}};
  std::vector<ChatMessage> messages = {{"user", "Weather in Paris?", nullptr},
                                       {"assistant", "", call},
                                       {"tool", "{\"temp\": 21}", nullptr}};
  EXPECT_EQ(apply_ok(t, messages, true, "", "", {{"tools", {tool}}}),
            "<|im_start|>system\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
            "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
            // The test's nlohmann::json objects keep keys sorted, so "function" precedes "type".
            "{\"function\": {\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\"}}, \"type\": \"function\"}\n"
            "</tools>\n\nFor each function call, return a json object with function name and arguments within "
            "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": "
            "<args-json-object>}\n</tool_call><|im_end|>\n"
            "<|im_start|>user\nWeather in Paris?<|im_end|>\n"
            "<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n"
            "</tool_call><|im_end|>\n"
            "<|im_start|>user\n<tool_response>\n{\"temp\": 21}\n</tool_response><|im_end|>\n"
            "<|im_start|>assistant\n");
}

TEST(ChatTemplateLlama3, RendersConversation) {
  ChatTemplate t = load("llama3.jinja");
  EXPECT_EQ(apply_ok(t, conversation(), true, "<|begin_of_text|>", "<|end_of_text|>"),
            "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou are a helpful assistant.<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nHello!<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\nHi there. How can I help?<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nWhat is 2+2?<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n");
}

TEST(ChatTemplateLlama3, TrimsMessageContent) {
  ChatTemplate t = load("llama3.jinja");
  EXPECT_EQ(apply_ok(t, {{"user", "  padded \n", nullptr}}, true, "<s>", "</s>"),
            "<s><|start_header_id|>user<|end_header_id|>\n\npadded<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n");
}

TEST(ChatTemplateLlama2, FoldsSystemPromptIntoFirstInstruction) {
  ChatTemplate t = load("llama2.jinja");
  EXPECT_EQ(apply_ok(t, conversation(), true, "<s>", "</s>"),
            "<s>[INST] <<SYS>>\nYou are a helpful assistant.\n<</SYS>>\n\nHello! [/INST]"
            " Hi there. How can I help? </s>"
            "<s>[INST] What is 2+2? [/INST]");
}

TEST(ChatTemplateLlama2, RejectsNonAlternatingRoles) {
  ChatTemplate t = load("llama2.jinja");
  Result<std::string> out = t.apply({{"user", "a", nullptr}, {"user", "b", nullptr}}, true, "<s>", "</s>");
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("Conversation roles must alternate user/assistant/user/assistant/..."),
            std::string::npos)
      << out.status().message();
}

TEST(ChatTemplateMistral, RendersInstructionFormat) {
  ChatTemplate t = load("mistral.jinja");
  std::vector<ChatMessage> all = conversation();
  std::vector<ChatMessage> messages(all.begin() + 1, all.end());  // no system message
  EXPECT_EQ(apply_ok(t, messages, true, "<s>", "</s>"),
            "<s>[INST] Hello! [/INST]Hi there. How can I help?</s>[INST] What is 2+2? [/INST]");
}

TEST(ChatTemplateMistral, SystemRoleRaisesTheTemplatesMessage) {
  ChatTemplate t = load("mistral.jinja");
  Result<std::string> out = t.apply(conversation(), true, "<s>", "</s>");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
  EXPECT_NE(out.status().message().find("Conversation roles must alternate"), std::string::npos)
      << out.status().message();
  EXPECT_NE(out.status().message().find("line 1, column"), std::string::npos) << out.status().message();
}

TEST(ChatTemplateChatML, RendersConversation) {
  ChatTemplate t = ChatTemplate::ChatML();
  EXPECT_TRUE(t.is_fallback());
  EXPECT_EQ(apply_ok(t, conversation(), true, "", ""),
            "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
            "<|im_start|>user\nHello!<|im_end|>\n"
            "<|im_start|>assistant\nHi there. How can I help?<|im_end|>\n"
            "<|im_start|>user\nWhat is 2+2?<|im_end|>\n"
            "<|im_start|>assistant\n");
}

TEST(TemplateOrChatML, KeepsAUsableTemplate) {
  ChatTemplate t = template_or_chatml(read_template("llama3.jinja"));
  EXPECT_FALSE(t.is_fallback());
  EXPECT_EQ(t.source(), read_template("llama3.jinja"));
}

TEST(TemplateOrChatML, FallsBackWhenMissingBrokenOrFailing) {
  EXPECT_TRUE(template_or_chatml(std::nullopt).is_fallback());
  EXPECT_TRUE(template_or_chatml(std::string("{% for m in messages %}unclosed")).is_fallback());
  EXPECT_TRUE(template_or_chatml(std::string("{{ raise_exception('no') }}")).is_fallback());
  EXPECT_TRUE(template_or_chatml(std::string("{{ x | no_such_filter }}")).is_fallback());
}

TEST(ChatTemplate, ExtraFieldsOverrideAndExtendMessages) {
  Result<ChatTemplate> t = ChatTemplate::Parse(
      "{% for m in messages %}{{ m.role }}:{{ m.content is none }}:{{ m.name | default('-') }};{% endfor %}");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  std::vector<ChatMessage> messages = {{"assistant", "ignored", {{"content", nullptr}, {"name", "bot"}}},
                                       {"user", "hi", nullptr}};
  EXPECT_EQ(apply_ok(*t, messages, false, "", ""), "assistant:True:bot;user:False:-;");
}

TEST(ChatTemplate, RejectsNonObjectContextAndExtra) {
  ChatTemplate t = ChatTemplate::ChatML();
  EXPECT_FALSE(t.apply({{"user", "x", nullptr}}, true, "", "", nlohmann::json::array()).ok());
  EXPECT_FALSE(t.apply({{"user", "x", nlohmann::json(3)}}, true, "", "").ok());
}

TEST(ChatTemplate, ConcurrentAppliesAgree) {
  ChatTemplate t = load("qwen3.jinja");
  std::vector<std::string> outputs(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int round = 0; round < 20; ++round) {
        Result<std::string> out = t.apply(conversation(), true, "", "");
        outputs[i] = out.ok() ? *out : out.status().ToString();
        if (outputs[i] != kQwen3Conversation) break;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (const std::string& out : outputs) EXPECT_EQ(out, kQwen3Conversation);
}

}  // namespace
}  // namespace strata
