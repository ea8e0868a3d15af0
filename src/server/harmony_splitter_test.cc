#include "server/harmony_splitter.h"

#include <gtest/gtest.h>

#include "server/tool_call_parser.h"

namespace strata::server {
namespace {

// Feeds the pieces one by one through a harmony ReasoningSplitter and renders what comes out as
// "R[...]" / "C[...]" runs.
std::string split_harmony(const std::vector<std::string>& tokens, bool starts_in_analysis = false,
                          int* n_reasoning = nullptr, bool* saw_reasoning = nullptr) {
  ReasoningSplitter splitter(ReasoningMode{true, starts_in_analysis, /*harmony=*/true});
  std::string reasoning, content;
  auto take = [&](const std::vector<ReasoningPiece>& pieces) {
    for (const ReasoningPiece& p : pieces) (p.reasoning ? reasoning : content) += p.text;
  };
  for (const std::string& t : tokens) take(splitter.feed(t));
  take(splitter.finish());
  if (n_reasoning) *n_reasoning = splitter.reasoning_tokens();
  if (saw_reasoning) *saw_reasoning = splitter.saw_reasoning();
  return "R[" + reasoning + "] C[" + content + "]";
}

// A reply as gpt-oss streams it after the prompt's "<|start|>assistant": one token per marker.
const std::vector<std::string> kHarmonyReply = {
    "<|channel|>", "analysis", "<|message|>", "User", " greets", ".", "<|end|>",
    "<|start|>",   "assistant", "<|channel|>", "final", "<|message|>", "Hello", "!"};

TEST(HarmonySplitter, AnalysisIsReasoningAndFinalIsContent) {
  int n = 0;
  bool saw = false;
  EXPECT_EQ(split_harmony(kHarmonyReply, false, &n, &saw), "R[User greets.] C[Hello!]");
  EXPECT_EQ(n, 7);  // the analysis message: header, body and <|end|>
  EXPECT_TRUE(saw);
}

TEST(HarmonySplitter, MarkersSplitAcrossPiecesAreRecognised) {
  std::string whole;
  for (const std::string& t : kHarmonyReply) whole += t;
  std::vector<std::string> bytes;
  for (char c : whole) bytes.emplace_back(1, c);
  EXPECT_EQ(split_harmony(bytes), "R[User greets.] C[Hello!]");
  EXPECT_EQ(split_harmony({whole}), "R[User greets.] C[Hello!]");
  EXPECT_EQ(split_harmony({whole + "<|return|>"}), "R[User greets.] C[Hello!]");
}

TEST(HarmonySplitter, ReplyWithoutAnalysisIsAllContent) {
  bool saw = true;
  EXPECT_EQ(split_harmony({"<|channel|>final<|message|>", "Just ", "this."}, false, nullptr, &saw),
            "R[] C[Just this.]");
  EXPECT_FALSE(saw);
}

TEST(HarmonySplitter, PlainTextIsContentByteForByte) {
  int n = 0;
  EXPECT_EQ(split_harmony({"  Hi <|channel|> there", "<b>"}, false, &n), "R[] C[  Hi <|channel|> there<b>]");
  EXPECT_EQ(n, 0);
  EXPECT_EQ(split_harmony({"<"}), "R[] C[<]");
  EXPECT_EQ(split_harmony({"<|chan"}), "R[] C[<|chan]");
  EXPECT_EQ(split_harmony({"<b>bold"}), "R[] C[<b>bold]");
  EXPECT_EQ(split_harmony({std::string(300, 'x')}), "R[] C[" + std::string(300, 'x') + "]");
}

TEST(HarmonySplitter, HeaderCutOffByTheEndIsDropped) {
  EXPECT_EQ(split_harmony({"<|channel|>analysis<|message|>think", "<|end|>", "<|start|>assistant<|chan"}),
            "R[think] C[]");
}

TEST(HarmonySplitter, UnfinishedAnalysisStaysReasoning) {
  EXPECT_EQ(split_harmony({"<|channel|>analysis<|message|>", "still thinking <|e"}), "R[still thinking <|e] C[]");
}

TEST(HarmonySplitter, PromptThatOpenedAnalysisStartsInsideIt) {
  EXPECT_EQ(split_harmony({"plan", "<|end|>", "<|start|>assistant<|channel|>final<|message|>", "answer"}, true),
            "R[plan] C[answer]");
  EXPECT_TRUE(prompt_opens_harmony_analysis("<|start|>assistant<|channel|>analysis<|message|>"));
  EXPECT_FALSE(prompt_opens_harmony_analysis("<|start|>assistant"));
  EXPECT_FALSE(prompt_opens_harmony_analysis("<|start|>assistant<|channel|>final<|message|>"));
}

TEST(HarmonySplitter, CommentaryPreambleIsContent) {
  EXPECT_EQ(split_harmony({"<|channel|>commentary<|message|>Checking.<|end|>",
                           "<|start|>assistant<|channel|>final<|message|>Done."}),
            "R[] C[Checking.Done.]");
}

// A tool call: analysis, then a commentary message to functions.get_weather; the engine stops
// at <|call|>, so the call's body ends with the output.
TEST(HarmonySplitter, ToolCallBecomesAHermesBlockTheToolParserReads) {
  for (const char* header : {"<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>",
                             " to=functions.get_weather<|channel|>commentary json<|message|>"}) {
    const std::string reply = std::string("<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant") +
                              header + "{\"city\": \"Paris\"}";
    const std::string split = split_harmony({reply});
    EXPECT_EQ(split, "R[Need weather.] C[<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n"
                     "</tool_call>]")
        << header;
    const SplitOutput whole = split_reasoning(reply, ReasoningMode{true, false, true});
    EXPECT_EQ(whole.reasoning, "Need weather.");
    const ParsedOutput parsed = parse_tool_calls(whole.content);
    ASSERT_EQ(parsed.calls.size(), 1u) << whole.content;
    EXPECT_EQ(parsed.calls[0].name, "get_weather");
    EXPECT_EQ(parsed.calls[0].arguments_json, "{\"city\":\"Paris\"}");
    EXPECT_EQ(parsed.content, "");
  }
}

// gpt-oss addressed a tool, so the message is a call even when its body is no JSON object: the
// parser gets the body back byte for byte as raw arguments, whole or fed a byte at a time.
TEST(HarmonySplitter, ToolCallWhoseBodyIsNotAJsonObjectIsStillACallWithTheRawBody) {
  for (const std::string& body : {std::string("{\"city\": \"Par"), std::string("city=Paris </tool_call> \\ \"x\""),
                                 std::string("[1, 2]"), std::string("")}) {
    const std::string reply = "<|channel|>analysis<|message|>Call it.<|end|><|start|>assistant<|channel|>commentary "
                              "to=functions.get_weather <|constrain|>json<|message|>" + body;
    std::vector<std::string> bytes;
    for (char c : reply) bytes.emplace_back(1, c);
    for (const std::vector<std::string>& tokens : {std::vector<std::string>{reply}, bytes}) {
      ReasoningSplitter splitter(ReasoningMode{true, false, true});
      ToolCallParser parser;
      std::vector<ToolCallPiece> calls;
      auto take = [&](const std::vector<ReasoningPiece>& pieces) {
        for (const ReasoningPiece& p : pieces) {
          if (p.reasoning) continue;
          for (ToolCallPiece& c : parser.feed(p.text)) calls.push_back(std::move(c));
        }
      };
      for (const std::string& t : tokens) take(splitter.feed(t));
      take(splitter.finish());
      for (ToolCallPiece& c : parser.finish()) calls.push_back(std::move(c));
      ASSERT_EQ(calls.size(), 1u) << body;
      ASSERT_TRUE(calls[0].is_call) << calls[0].text;
      EXPECT_EQ(calls[0].call.name, "get_weather");
      EXPECT_TRUE(calls[0].call.arguments_raw);
      EXPECT_EQ(calls[0].call.arguments_json, body);
    }
  }
}

TEST(HarmonySplitter, ToolCallBodyThatClosesAHermesBlockStaysInsideItsCall) {
  const std::string reply = "<|channel|>commentary to=functions.f<|message|>{\"a\": \"</tool_call>\"}";
  const ParsedOutput parsed = parse_tool_calls(split_reasoning(reply, ReasoningMode{true, false, true}).content);
  ASSERT_EQ(parsed.calls.size(), 1u);
  EXPECT_FALSE(parsed.calls[0].arguments_raw);
  EXPECT_EQ(parsed.calls[0].arguments_json, "{\"a\":\"</tool_call>\"}");
  EXPECT_EQ(parsed.content, "");
}

TEST(HarmonySplitter, ToolCallEndedByCallMarkerInTextIsReleasedThen) {
  ReasoningSplitter splitter(ReasoningMode{true, false, true});
  std::vector<ReasoningPiece> pieces = splitter.feed("<|channel|>commentary to=functions.f<|message|>{}<|call|>");
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_FALSE(pieces[0].reasoning);
  EXPECT_EQ(pieces[0].text, "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>");
  EXPECT_TRUE(splitter.finish().empty());
}

}  // namespace
}  // namespace strata::server
