#include "server/reasoning_splitter.h"

#include <gtest/gtest.h>

#include "server/testing/fake_model_text.h"

namespace strata::server {
namespace {

// Feeds the pieces one by one and renders what comes out as "R[...]" / "C[...]" runs.
std::string split_stream(const std::vector<std::string>& tokens, bool starts_open = false, int* n_reasoning = nullptr) {
  ReasoningSplitter splitter(starts_open);
  std::string reasoning, content;
  auto take = [&](const std::vector<ReasoningPiece>& pieces) {
    for (const ReasoningPiece& p : pieces) (p.reasoning ? reasoning : content) += p.text;
  };
  for (const std::string& t : tokens) take(splitter.feed(t));
  take(splitter.finish());
  if (n_reasoning) *n_reasoning = splitter.reasoning_tokens();
  return "R[" + reasoning + "] C[" + content + "]";
}

TEST(ReasoningSplitter, ThinkBlockGoesToReasoningAndTheRestToContent) {
  int n = 0;
  EXPECT_EQ(split_stream({"<think>", "\nI greet", ".\n", "</think>", "\n\n", "Hello", "!"}, false, &n),
            "R[\nI greet.\n] C[Hello!]");
  EXPECT_EQ(n, 4);
}

TEST(ReasoningSplitter, TagsSplitAcrossTokensAreRecognised) {
  EXPECT_EQ(split_stream({"<th", "ink>a</", "thi", "nk>b"}), "R[a] C[b]");
}

TEST(ReasoningSplitter, OutputWithoutThinkIsAllContentByteForByte) {
  int n = 0;
  EXPECT_EQ(split_stream({"  Hi <think> there", "</think>"}, false, &n), "R[] C[  Hi <think> there</think>]");
  EXPECT_EQ(n, 0);
  EXPECT_EQ(split_stream({"<thi"}), "R[] C[<thi]");
  EXPECT_EQ(split_stream({"<b>"}), "R[] C[<b>]");
}

// Magistral and Ministral 3 Reasoning write [THINK]...[/THINK]; there <think> is text.
TEST(ReasoningSplitter, MistralThinkTagsSplitReasoningFromTheAnswer) {
  const ReasoningMode mistral{true, false, false, false, kMistralThinkTags};
  const auto split = [&mistral](const std::vector<std::string>& tokens) {
    ReasoningSplitter splitter(mistral);
    std::string reasoning, content;
    auto take = [&](const std::vector<ReasoningPiece>& pieces) {
      for (const ReasoningPiece& p : pieces) (p.reasoning ? reasoning : content) += p.text;
    };
    for (const std::string& t : tokens) take(splitter.feed(t));
    take(splitter.finish());
    return "R[" + reasoning + "] C[" + content + "]";
  };
  EXPECT_EQ(split({"[THINK]", "Add", " them.", "[/THINK]", "4"}), "R[Add them.] C[4]");
  EXPECT_EQ(split({"[TH", "INK]a[/", "THI", "NK]\n\nb"}), "R[a] C[b]");
  EXPECT_EQ(split({"<think>a</think>b"}), "R[] C[<think>a</think>b]");
  EXPECT_EQ(split({"[TOOL_CALLS]f[ARGS]{}"}), "R[] C[[TOOL_CALLS]f[ARGS]{}]");
  EXPECT_EQ(split_reasoning("[THINK]x[/THINK][TOOL_CALLS]f", mistral).reasoning, "x");
  EXPECT_TRUE(prompt_opens_reasoning("[INST]Hi[/INST][THINK]\n", kMistralThinkTags));
  EXPECT_FALSE(prompt_opens_reasoning("[INST]Hi[/INST][THINK]\n"));
  EXPECT_TRUE(prompt_closes_reasoning("[THINK][/THINK]", kMistralThinkTags));
}

// Gemma 4 thinks in its thought channel, "<|channel>thought\n...<channel|>"; gpt-oss's harmony
// "<|channel|>" is not it.
TEST(ReasoningSplitter, Gemma4ThoughtChannelSplitsReasoningFromTheAnswer) {
  const ReasoningMode gemma4{true, false, false, false, kGemma4ThoughtTags};
  ReasoningSplitter splitter(gemma4);
  std::string reasoning, content;
  auto take = [&](const std::vector<ReasoningPiece>& pieces) {
    for (const ReasoningPiece& p : pieces) (p.reasoning ? reasoning : content) += p.text;
  };
  for (const char* t : {"<|channel>", "thought", "\n", "Add them.", "<channel|>", "4"}) take(splitter.feed(t));
  take(splitter.finish());
  EXPECT_EQ("R[" + reasoning + "] C[" + content + "]", "R[Add them.] C[4]");
  EXPECT_EQ(split_reasoning("<think>a</think>b", gemma4).content, "<think>a</think>b");
  EXPECT_TRUE(prompt_closes_reasoning("<|turn>model\n<|channel>thought\n<channel|>", kGemma4ThoughtTags));
  EXPECT_FALSE(prompt_closes_reasoning("<|turn>model\n<|channel|>analysis<|message|>", kGemma4ThoughtTags));
}

TEST(ReasoningSplitter, PromptThatOpenedReasoningStartsInsideIt) {
  EXPECT_EQ(split_stream({"plan", "</think>", "\n\nanswer"}, true), "R[plan] C[answer]");
}

TEST(ReasoningSplitter, UnclosedReasoningStaysReasoning) {
  EXPECT_EQ(split_stream({"<think>", "still thinking </thi"}), "R[still thinking </thi] C[]");
}

TEST(ReasoningSplitter, SplitReasoningSplitsAWholeOutput) {
  SplitOutput split = split_reasoning("\n<think>why</think>\n\nbecause", false);
  EXPECT_TRUE(split.had_reasoning);
  EXPECT_EQ(split.reasoning, "why");
  EXPECT_EQ(split.content, "because");
  EXPECT_FALSE(split_reasoning("plain", false).had_reasoning);
}

// GLM-4.5 with enable_thinking false: the prompt ends "<|assistant|>\n<think></think>" and the
// model writes "\n" before its answer, as after a reasoning block of its own.
TEST(ReasoningSplitter, PromptThatClosedReasoningDropsTheWhitespaceBeforeTheAnswer) {
  ReasoningMode mode{/*split=*/true, /*starts_open=*/false, /*harmony=*/false, /*starts_closed=*/true};
  SplitOutput split = split_reasoning("\nHello <think>x</think>", mode);
  EXPECT_FALSE(split.had_reasoning);
  EXPECT_EQ(split.content, "Hello <think>x</think>");
  EXPECT_EQ(split_reasoning("\n<think>x</think>\nHi", mode).reasoning, "x");  // a block is still one
  EXPECT_TRUE(prompt_closes_reasoning("[gMASK]<sop><|user|>\nHi<|assistant|>\n<think></think>"));
  EXPECT_TRUE(prompt_closes_reasoning("<|im_start|>assistant\n<think>\n\n</think>\n\n"));
  EXPECT_FALSE(prompt_closes_reasoning("<|im_start|>assistant\n<think>\n"));
  EXPECT_FALSE(prompt_closes_reasoning("<|assistant|>"));
}

// DeepSeek's prompt endings: R1's template opens "<think>\n" itself, R1-0528's stops at
// "<｜Assistant｜>" and the model opens the block, V3.1's writes "<think>" (thinking) or "</think>".
TEST(ReasoningSplitter, DeepseekPromptEndingsDecideWhereTheReplyStarts) {
  EXPECT_TRUE(prompt_opens_reasoning("<｜User｜>Hi<｜Assistant｜><think>\n"));
  EXPECT_TRUE(prompt_opens_reasoning("<｜User｜>Hi<｜Assistant｜><think>"));
  EXPECT_TRUE(prompt_closes_reasoning("<｜User｜>Hi<｜Assistant｜></think>"));
  EXPECT_FALSE(prompt_opens_reasoning("<｜User｜>Hi<｜Assistant｜>"));
  EXPECT_FALSE(prompt_closes_reasoning("<｜User｜>Hi<｜Assistant｜>"));

  SplitOutput r1 = split_reasoning("The user greets.\n</think>\n\nHello!", /*starts_open=*/true);
  EXPECT_EQ(r1.reasoning, "The user greets.\n");
  EXPECT_EQ(r1.content, "Hello!");
  SplitOutput r1_0528 = split_reasoning("<think>\nThe user greets.\n</think>\n\nHello!", /*starts_open=*/false);
  EXPECT_EQ(r1_0528.reasoning, "\nThe user greets.\n");
  EXPECT_EQ(r1_0528.content, "Hello!");
  EXPECT_EQ(split_stream({"<", "think", ">\n", "Hm.", "</", "think", ">\n\n", "Hi"}), "R[\nHm.] C[Hi]");

  ReasoningMode v31_off{/*split=*/true, /*starts_open=*/false, /*harmony=*/false, /*starts_closed=*/true};
  SplitOutput off = split_reasoning("Hello<｜tool▁calls▁begin｜>", v31_off);
  EXPECT_FALSE(off.had_reasoning);
  EXPECT_EQ(off.content, "Hello<｜tool▁calls▁begin｜>");
}

// Kimi-K2-Thinking opens <think> itself after its "<|im_middle|>" and may call a tool straight
// from its reasoning without closing it (as llama.cpp reads it): a call tag then ends the
// reasoning and is content, whole, for the tool-call parser, however the tokens cut it. A closed
// block is read as for any model, and other models keep a call tag inside their reasoning.
TEST(ReasoningSplitter, KimiCallTagsEndAReasoningNeverClosed) {
  EXPECT_FALSE(prompt_opens_reasoning("<|im_user|>user<|im_middle|>Hi<|im_end|><|im_assistant|>assistant<|im_middle|>"));
  EXPECT_FALSE(prompt_closes_reasoning("<|im_user|>user<|im_middle|>Hi<|im_end|><|im_assistant|>assistant<|im_middle|>"));
  ReasoningMode kimi;
  kimi.split = true;
  kimi.calls_end_reasoning = true;
  const std::string section = "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}"
                              "<|tool_call_end|><|tool_calls_section_end|>";
  for (const std::string& call : {section, std::string("<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}")}) {
    const std::string output = "<think>Need the tool.\n" + call;
    for (size_t n : {1u, 3u, 1000u}) {
      ReasoningSplitter splitter(kimi);
      std::string reasoning, content;
      auto take = [&](const std::vector<ReasoningPiece>& pieces) {
        for (const ReasoningPiece& p : pieces) (p.reasoning ? reasoning : content) += p.text;
      };
      for (size_t at = 0; at < output.size(); at += n) take(splitter.feed(output.substr(at, n)));
      take(splitter.finish());
      EXPECT_EQ(reasoning, "Need the tool.\n") << n;
      EXPECT_EQ(content, call) << n;
    }
  }
  SplitOutput closed = split_reasoning("<think>Plan.</think>Sure.<|tool_call_begin|>x", kimi);
  EXPECT_EQ(closed.reasoning, "Plan.");
  EXPECT_EQ(closed.content, "Sure.<|tool_call_begin|>x");
  EXPECT_EQ(split_reasoning("<think>a<|tool_call", kimi).reasoning, "a<|tool_call");  // never a tag: reasoning
  ReasoningMode other;
  other.split = true;
  EXPECT_EQ(split_reasoning("<think>a" + section, other).reasoning, "a" + section);

  testing::FakeModelText text;
  EXPECT_FALSE(chat_reasoning_mode(text, {}).calls_end_reasoning);
  text.tool_syntax = ToolCallSyntax::kKimiK2;
  EXPECT_TRUE(chat_reasoning_mode(text, {}).calls_end_reasoning);
}

// Cohere's replies: North's prompt opens <|START_THINKING|> and its answer comes wrapped in
// <|START_TEXT|>...<|END_TEXT|> (the markers left out), after the thinking closed or straight from
// it; its calls' opener ends the thinking too, and a stray text closer after them is left out.
// Command R7B opens the thinking itself and wraps its answer in <|START_RESPONSE|>.
TEST(ReasoningSplitter, CohereThinkingEndsAtItsAnswerOrCallsAndTheAnswerMarkersAreLeftOut) {
  const auto split = [](const ReasoningMode& mode, const std::string& output, size_t n) {
    ReasoningSplitter splitter(mode);
    std::string reasoning, content;
    auto take = [&](const std::vector<ReasoningPiece>& pieces) {
      for (const ReasoningPiece& p : pieces) (p.reasoning ? reasoning : content) += p.text;
    };
    for (size_t at = 0; at < output.size(); at += n) take(splitter.feed(output.substr(at, n)));
    take(splitter.finish());
    return "R[" + reasoning + "] C[" + content + "]";
  };
  const ReasoningMode north{true, true, false, false, kCohereTextTags};
  const ReasoningMode r7b{true, false, false, false, kCohereResponseTags};
  const std::string action = "<|START_ACTION|>[{\"tool_name\": \"f\"}]<|END_ACTION|>";
  for (size_t n : {1u, 2u, 5u, 1000u}) {
    EXPECT_EQ(split(north, "Add them.<|END_THINKING|><|START_TEXT|>It is 4.<|END_TEXT|>", n), "R[Add them.] C[It is 4.]") << n;
    EXPECT_EQ(split(north, "Add them.<|START_TEXT|>It is 4.<|END_TEXT|>", n), "R[Add them.] C[It is 4.]") << n;
    EXPECT_EQ(split(north, "Need f.<|END_THINKING|>" + action + "<|END_TEXT|>", n), "R[Need f.] C[" + action + "]") << n;
    EXPECT_EQ(split(north, "Need f." + action, n), "R[Need f.] C[" + action + "]") << n;
    EXPECT_EQ(split(r7b, "<|START_THINKING|>Plan.<|END_THINKING|>" + action, n), "R[Plan.] C[" + action + "]") << n;
    EXPECT_EQ(split(r7b, "<|START_RESPONSE|>Hi <|START|> there!<|END_RESPONSE|>", n), "R[] C[Hi <|START|> there!]") << n;
  }
  // After a prompt that closed the thinking (reasoning switched off) the answer alone.
  const ReasoningMode north_off{true, false, false, true, kCohereTextTags};
  EXPECT_EQ(split(north_off, "<|START_TEXT|>Hi.<|END_TEXT|>", 3), "R[] C[Hi.]");
  EXPECT_EQ(split(north, "a<|START_TE", 1), "R[a<|START_TE] C[]");  // never a marker: reasoning
  EXPECT_EQ(split(north_off, "<|START_TEXT|>x<|END_TE", 4), "R[] C[x<|END_TE]");
  EXPECT_TRUE(prompt_opens_reasoning("<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|><|START_THINKING|>", kCohereTextTags));
  EXPECT_TRUE(prompt_closes_reasoning("<|CHATBOT_TOKEN|><|START_THINKING|><|END_THINKING|>", kCohereTextTags));
  // Other families' splitters leave Cohere's markers alone.
  EXPECT_EQ(split_reasoning("<|START_TEXT|>x<|END_TEXT|>", ReasoningMode{true}).content, "<|START_TEXT|>x<|END_TEXT|>");
}

// Seed-OSS thinks in <seed:think>...</seed:think> (its budget reflections inside stay reasoning);
// a prompt that closed the block (thinking_budget 0) leaves the answer alone.
TEST(ReasoningSplitter, SeedThinkTagsSplitReasoningFromTheAnswer) {
  const ReasoningMode seed{true, false, false, false, kSeedThinkTags};
  const std::string output = "<seed:think>Add them.<seed:cot_budget_reflect>128 left</seed:cot_budget_reflect>"
                             "</seed:think>It is 4.";
  for (size_t n : {1u, 3u, 1000u}) {
    ReasoningSplitter splitter(seed);
    std::string reasoning, content;
    auto take = [&](const std::vector<ReasoningPiece>& pieces) {
      for (const ReasoningPiece& p : pieces) (p.reasoning ? reasoning : content) += p.text;
    };
    for (size_t at = 0; at < output.size(); at += n) take(splitter.feed(output.substr(at, n)));
    take(splitter.finish());
    EXPECT_EQ(reasoning, "Add them.<seed:cot_budget_reflect>128 left</seed:cot_budget_reflect>") << n;
    EXPECT_EQ(content, "It is 4.") << n;
  }
  EXPECT_TRUE(prompt_closes_reasoning("<seed:bos>assistant\n<seed:think>\n<seed:cot_budget_reflect>x"
                                      "</seed:cot_budget_reflect>\n</seed:think>",
                                      kSeedThinkTags));
  EXPECT_EQ(split_reasoning("<seed:think>a</seed:think>b", ReasoningMode{true}).content, "<seed:think>a</seed:think>b");
}

TEST(ReasoningSplitter, PromptOpensReasoningWhenItEndsWithAnOpenTag) {
  EXPECT_TRUE(prompt_opens_reasoning("<|im_start|>assistant\n<think>\n"));
  EXPECT_FALSE(prompt_opens_reasoning("<|im_start|>assistant\n<think>\n\n</think>\n\n"));
  EXPECT_FALSE(prompt_opens_reasoning("<|im_start|>assistant\n"));
}

}  // namespace
}  // namespace strata::server
