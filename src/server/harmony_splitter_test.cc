#include "server/harmony_splitter.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server/tool_call_parser.h"

namespace strata::server {
namespace {

constexpr bool kToolCalls = true;  // the splitter takes harmony calls apart

// Feeds the pieces one by one through a harmony ReasoningSplitter and renders what comes out as
// "R[...]" / "C[...]" runs, a call in the content as "{NAME ARGUMENTS}".
std::string split_harmony(const std::vector<std::string>& tokens, bool starts_in_analysis = false,
                          int* n_reasoning = nullptr, bool* saw_reasoning = nullptr, bool tool_calls = false) {
  ReasoningSplitter splitter(ReasoningMode{true, starts_in_analysis, /*harmony=*/true}, tool_calls);
  std::string reasoning, content;
  auto take = [&](const std::vector<ReasoningPiece>& pieces) {
    for (const ReasoningPiece& p : pieces) {
      (p.reasoning ? reasoning : content) += p.text;
      if (p.call) content += "{" + p.call->name + " " + p.call->arguments_json + "}";
    }
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
// at <|call|>, so the call's body ends with the output. With calls taken apart it is a call whole,
// its JSON object arguments compact as the tool-call parser would hand them on.
TEST(HarmonySplitter, ToolCallComesOutAsACallWithItsArguments) {
  for (const char* header : {"<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>",
                             " to=functions.get_weather<|channel|>commentary json<|message|>"}) {
    const std::string reply = std::string("<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant") +
                              header + "{\"city\": \"Paris\"}";
    EXPECT_EQ(split_harmony({reply}, false, nullptr, nullptr, kToolCalls),
              "R[Need weather.] C[{get_weather {\"city\":\"Paris\"}}]")
        << header;
    const SplitOutput whole = split_reasoning(reply, ReasoningMode{true, false, true}, kToolCalls);
    EXPECT_EQ(whole.reasoning, "Need weather.");
    EXPECT_EQ(whole.content, "");
    ASSERT_EQ(whole.calls.size(), 1u);
    EXPECT_EQ(whole.calls[0].at, 0u);
    EXPECT_EQ(whole.calls[0].call.name, "get_weather");
    EXPECT_EQ(whole.calls[0].call.arguments_json, "{\"city\":\"Paris\"}");
    EXPECT_FALSE(whole.calls[0].call.arguments_raw);
  }
}

// A preamble on the commentary channel, then two calls: each call comes with the content just
// before it, and the whole output places each call after the content that preceded it.
TEST(HarmonySplitter, CallsAfterAPreambleComeInOrderWithTheTextBeforeThem) {
  const std::string reply =
      "<|channel|>analysis<|message|>Two lookups.<|end|>"
      "<|start|>assistant<|channel|>commentary<|message|>Checking both.<|end|>"
      "<|start|>assistant<|channel|>commentary to=functions.a <|constrain|>json<|message|>{\"x\": 1}<|call|>"
      "<|start|>assistant<|channel|>commentary to=functions.b <|constrain|>json<|message|>\"{\\\"y\\\": 2}\"";
  EXPECT_EQ(split_harmony({reply}, false, nullptr, nullptr, kToolCalls),
            "R[Two lookups.] C[Checking both.{a {\"x\":1}}{b {\"y\":2}}]");
  std::vector<std::string> bytes;
  for (char c : reply) bytes.emplace_back(1, c);
  EXPECT_EQ(split_harmony(bytes, false, nullptr, nullptr, kToolCalls),
            "R[Two lookups.] C[Checking both.{a {\"x\":1}}{b {\"y\":2}}]");

  ReasoningSplitter splitter(ReasoningMode{true, false, true}, kToolCalls);
  std::vector<ReasoningPiece> pieces = splitter.feed(reply);
  for (ReasoningPiece& p : splitter.finish()) pieces.push_back(std::move(p));
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_TRUE(pieces[0].reasoning);
  EXPECT_EQ(pieces[1].text, "Checking both.");
  ASSERT_TRUE(pieces[1].call.has_value());
  EXPECT_EQ(pieces[1].call->name, "a");
  EXPECT_EQ(pieces[2].text, "");
  ASSERT_TRUE(pieces[2].call.has_value());
  EXPECT_EQ(pieces[2].call->name, "b");

  const SplitOutput whole = split_reasoning(reply, ReasoningMode{true, false, true}, kToolCalls);
  EXPECT_EQ(whole.content, "Checking both.");
  ASSERT_EQ(whole.calls.size(), 2u);
  EXPECT_EQ(whole.calls[0].at, 14u);
  EXPECT_EQ(whole.calls[1].at, 14u);
  const ParsedOutput parsed = parse_tool_calls(whole.content, whole.calls);
  EXPECT_EQ(parsed.content, "Checking both.");
  ASSERT_EQ(parsed.calls.size(), 2u);
  EXPECT_EQ(parsed.calls[1].arguments_json, "{\"y\":2}");  // a JSON string holding an object is that object
}

// gpt-oss addressed a tool, so the message is a call even when its body is no JSON object: the
// body comes back byte for byte as raw arguments, whole or fed a byte at a time.
TEST(HarmonySplitter, ToolCallWhoseBodyIsNotAJsonObjectIsStillACallWithTheRawBody) {
  for (const std::string& body : {std::string("{\"city\": \"Par"), std::string("city=Paris </tool_call> \\ \"x\""),
                                 std::string("[1, 2]"), std::string("\"text\""), std::string("")}) {
    const std::string reply = "<|channel|>analysis<|message|>Call it.<|end|><|start|>assistant<|channel|>commentary "
                              "to=functions.get_weather <|constrain|>json<|message|>" + body;
    std::vector<std::string> bytes;
    for (char c : reply) bytes.emplace_back(1, c);
    for (const std::vector<std::string>& tokens : {std::vector<std::string>{reply}, bytes}) {
      ReasoningSplitter splitter(ReasoningMode{true, false, true}, kToolCalls);
      std::vector<ParsedToolCall> calls;
      std::string content;
      auto take = [&](const std::vector<ReasoningPiece>& pieces) {
        for (const ReasoningPiece& p : pieces) {
          if (p.reasoning) continue;
          content += p.text;
          if (p.call) calls.push_back(*p.call);
        }
      };
      for (const std::string& t : tokens) take(splitter.feed(t));
      take(splitter.finish());
      EXPECT_EQ(content, "") << body;
      ASSERT_EQ(calls.size(), 1u) << body;
      EXPECT_EQ(calls[0].name, "get_weather");
      EXPECT_TRUE(calls[0].arguments_raw);
      EXPECT_EQ(calls[0].arguments_json, body);
    }
  }
}

// The call never passes through text, so Hermes markup in its arguments is only arguments: in a
// JSON object's strings or in a body that is no JSON at all.
TEST(HarmonySplitter, ToolCallArgumentsHoldingHermesMarkupStayInsideTheirCall) {
  const std::string object = "{\"a\": \"</tool_call>\", \"b\": \"<tool_call>\\n{\\\"name\\\": \\\"x\\\"}\"}";
  const std::string raw = "</tool_call><tool_call>{\"name\": \"x\", \"arguments\": {}}</tool_call> <\\/";
  for (const std::string& body : {object, raw}) {
    const std::string reply = "<|channel|>commentary to=functions.f<|message|>" + body;
    const SplitOutput whole = split_reasoning(reply, ReasoningMode{true, false, true}, kToolCalls);
    EXPECT_EQ(whole.content, "");
    ASSERT_EQ(whole.calls.size(), 1u) << body;
    EXPECT_EQ(whole.calls[0].call.name, "f");
    EXPECT_EQ(whole.calls[0].call.arguments_raw, body == raw);
    EXPECT_EQ(whole.calls[0].call.arguments_json,
              body == raw ? raw : nlohmann::json::parse(object).dump());
    const ParsedOutput parsed = parse_tool_calls(whole.content, whole.calls);
    ASSERT_EQ(parsed.calls.size(), 1u);
    EXPECT_EQ(parsed.calls[0].arguments_json, whole.calls[0].call.arguments_json);
    EXPECT_EQ(parsed.content, "");
  }
}

// Text that opens a <tool_call> block it never closes cannot take the call that follows into it.
TEST(HarmonySplitter, PreambleThatOpensAHermesBlockDoesNotSwallowTheCallAfterIt) {
  const std::string reply = "<|channel|>commentary<|message|>Note <tool_call>{\"name\": <|end|>"
                            "<|start|>assistant<|channel|>commentary to=functions.f<|message|>{\"a\": 1}";
  const SplitOutput whole = split_reasoning(reply, ReasoningMode{true, false, true}, kToolCalls);
  const ParsedOutput parsed = parse_tool_calls(whole.content, whole.calls);
  EXPECT_EQ(parsed.content, "Note <tool_call>{\"name\":");
  ASSERT_EQ(parsed.calls.size(), 1u);
  EXPECT_EQ(parsed.calls[0].name, "f");
  EXPECT_EQ(parsed.calls[0].arguments_json, "{\"a\":1}");
}

TEST(HarmonySplitter, ToolCallEndedByCallMarkerInTextIsReleasedThen) {
  ReasoningSplitter splitter(ReasoningMode{true, false, true}, kToolCalls);
  std::vector<ReasoningPiece> pieces = splitter.feed("<|channel|>commentary to=functions.f<|message|>{}<|call|>");
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_FALSE(pieces[0].reasoning);
  EXPECT_EQ(pieces[0].text, "");
  ASSERT_TRUE(pieces[0].call.has_value());
  EXPECT_EQ(pieces[0].call->name, "f");
  EXPECT_EQ(pieces[0].call->arguments_json, "{}");
  EXPECT_TRUE(splitter.finish().empty());
}

// A request that takes no calls sees a message to a tool as the Hermes block a model writes, its
// body as written (a JSON string when it is no JSON object); so does a recipient with no name.
TEST(HarmonySplitter, ToolCallIsAHermesBlockOfContentWhenCallsAreNotTaken) {
  const std::string call = "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>";
  EXPECT_EQ(split_harmony({call + "{\"city\": \"Paris\"}"}),
            "R[] C[<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>]");
  EXPECT_EQ(split_harmony({call + "city=</b>"}),
            "R[] C[<tool_call>\n{\"name\": \"get_weather\", \"arguments\": \"city=</b>\"}\n</tool_call>]");
  EXPECT_EQ(split_harmony({"<|channel|>commentary to=functions.<|message|>{}"}, false, nullptr, nullptr, kToolCalls),
            "R[] C[<tool_call>\n{\"name\": \"\", \"arguments\": {}}\n</tool_call>]");
}

}  // namespace
}  // namespace strata::server
