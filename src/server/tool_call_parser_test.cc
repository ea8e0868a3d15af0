#include "server/tool_call_parser.h"

#include <gtest/gtest.h>

#include <random>

namespace strata::server {
namespace {

// Feeds output in pieces of n_bytes, as a stream would deliver it, and gathers the pieces.
std::vector<ToolCallPiece> stream_pieces(std::string_view output, size_t n_bytes) {
  ToolCallParser parser;
  std::vector<ToolCallPiece> all;
  for (size_t at = 0; at < output.size(); at += n_bytes) {
    for (ToolCallPiece& p : parser.feed(output.substr(at, n_bytes))) all.push_back(std::move(p));
  }
  for (ToolCallPiece& p : parser.finish()) all.push_back(std::move(p));
  return all;
}

std::string joined_text(const std::vector<ToolCallPiece>& pieces) {
  std::string text;
  for (const ToolCallPiece& p : pieces) text += p.is_call ? "" : p.text;
  return text;
}

TEST(ToolCallParser, HermesBlockIsACall) {
  ParsedOutput out = parse_tool_calls(
      "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>");
  ASSERT_EQ(out.calls.size(), 1u);
  EXPECT_EQ(out.calls[0].name, "get_weather");
  EXPECT_EQ(out.calls[0].arguments_json, R"({"city":"Paris"})");
  EXPECT_EQ(out.content, "");
}

TEST(ToolCallParser, ArgumentsKeepTheModelsKeyOrder) {
  for (const char* text : {"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"z\": 1, \"a\": {\"y\": 2, \"b\": 3}}}\n</tool_call>",
                           "{\"name\": \"f\", \"arguments\": \"{\\\"z\\\": 1, \\\"a\\\": {\\\"y\\\": 2, \\\"b\\\": 3}}\"}",
                           "[{\"name\": \"f\", \"parameters\": {\"z\": 1, \"a\": {\"y\": 2, \"b\": 3}}}]"}) {
    ParsedOutput out = parse_tool_calls(text);
    ASSERT_EQ(out.calls.size(), 1u) << text;
    EXPECT_EQ(out.calls[0].arguments_json, R"({"z":1,"a":{"y":2,"b":3}})") << text;
  }
}

TEST(ToolCallParser, SeveralCallsWithTextAround) {
  ParsedOutput out = parse_tool_calls(
      "Let me look.\n<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n"
      "<tool_call>{\"name\": \"b\", \"arguments\": \"{\\\"x\\\": 1}\"}</tool_call>\nDone.\n");
  ASSERT_EQ(out.calls.size(), 2u);
  EXPECT_EQ(out.calls[0].name, "a");
  EXPECT_EQ(out.calls[0].arguments_json, "{}");
  EXPECT_EQ(out.calls[1].name, "b");
  EXPECT_EQ(out.calls[1].arguments_json, R"({"x":1})");  // a string holding JSON is unwrapped
  EXPECT_EQ(out.content, "Let me look.\n\n\nDone.");
}

TEST(ToolCallParser, BareJsonObjectIsACall) {
  ParsedOutput out = parse_tool_calls("  {\"name\": \"search\", \"parameters\": {\"q\": \"cats\"}}\n");
  ASSERT_EQ(out.calls.size(), 1u);
  EXPECT_EQ(out.calls[0].name, "search");
  EXPECT_EQ(out.calls[0].arguments_json, R"({"q":"cats"})");
  EXPECT_EQ(out.content, "");
}

TEST(ToolCallParser, JsonThatIsNotACallStaysText) {
  const std::string answer = "{\"answer\": 42}";
  ParsedOutput out = parse_tool_calls(answer);
  EXPECT_TRUE(out.calls.empty());
  EXPECT_EQ(out.content, answer);
}

TEST(ToolCallParser, MalformedBlocksStayTextWordForWord) {
  const std::string outputs[] = {
      "<tool_call>\n{\"name\": \"a\", \"arguments\": {\n</tool_call>",   // bad JSON
      "<tool_call>{\"arguments\": {}}</tool_call>",                       // no name
      "<tool_call>{\"name\": \"a\", \"arguments\": [1]}</tool_call>",     // arguments not an object
      "Sure <tool_call>{\"name\": \"a\", \"arguments\": {}}",             // never closed
      "a < b and <tool_ca",                                                // a partial tag at the end
  };
  for (const std::string& output : outputs) {
    ParsedOutput out = parse_tool_calls(output);
    EXPECT_TRUE(out.calls.empty()) << output;
    EXPECT_EQ(out.content, output);
    for (size_t n : {1, 3, 7}) EXPECT_EQ(joined_text(stream_pieces(output, n)), output) << output << " by " << n;
  }
}

TEST(ToolCallParser, StringArgumentsThatHoldNoObjectAreKeptRaw) {
  const std::string output = R"(<tool_call>{"name": "f", "arguments": "{\"city\": \"Par"}</tool_call>)";
  for (size_t n : {size_t{1}, size_t{5}, output.size()}) {
    std::vector<ToolCallPiece> pieces = stream_pieces(output, n);
    ASSERT_EQ(pieces.size(), 1u) << "by " << n;
    ASSERT_TRUE(pieces[0].is_call);
    EXPECT_EQ(pieces[0].call.name, "f");
    EXPECT_TRUE(pieces[0].call.arguments_raw);
    EXPECT_EQ(pieces[0].call.arguments_json, R"({"city": "Par)");
  }
  ParsedOutput object = parse_tool_calls(R"(<tool_call>{"name": "f", "arguments": "{}"}</tool_call>)");
  ASSERT_EQ(object.calls.size(), 1u);
  EXPECT_FALSE(object.calls[0].arguments_raw);
}

TEST(ToolCallParser, MalformedBlockDoesNotHideALaterCall) {
  ParsedOutput out = parse_tool_calls(
      "<tool_call>oops</tool_call><tool_call>{\"name\": \"b\", \"arguments\": {}}</tool_call>");
  ASSERT_EQ(out.calls.size(), 1u);
  EXPECT_EQ(out.calls[0].name, "b");
  EXPECT_EQ(out.content, "<tool_call>oops</tool_call>");
}

TEST(ToolCallParser, StreamingHoldsAPossibleTagAndReleasesPlainText) {
  ToolCallParser parser;
  std::vector<ToolCallPiece> first = parser.feed("Checking <tool");
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].text, "Checking ");  // "<tool" might open a call: held
  std::vector<ToolCallPiece> second = parser.feed("_call>{\"name\": \"f\", ");
  EXPECT_TRUE(second.empty());  // inside an open block
  std::vector<ToolCallPiece> third = parser.feed("\"arguments\": {\"k\": \"v\"}}</tool_call>");
  ASSERT_EQ(third.size(), 1u);
  ASSERT_TRUE(third[0].is_call);
  EXPECT_EQ(third[0].call.name, "f");
  EXPECT_EQ(third[0].call.arguments_json, R"({"k":"v"})");
  EXPECT_TRUE(parser.feed("\n").empty());
  EXPECT_TRUE(parser.finish().empty());  // whitespace after the last call is dropped
  EXPECT_EQ(parser.n_calls(), 1);
}

TEST(ToolCallParser, StreamingReleasesAFalseAlarm) {
  ToolCallParser parser;
  std::vector<ToolCallPiece> held = parser.feed("x <tool");
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0].text, "x ");
  std::vector<ToolCallPiece> released = parser.feed("box>");
  ASSERT_EQ(released.size(), 1u);
  EXPECT_EQ(released[0].text, "<toolbox>");
}

TEST(ToolCallParser, StreamingGivesTheSameAnswerInAnyPieces) {
  const std::string output =
      "Plan:\n<tool_call>\n{\"name\": \"a\", \"arguments\": {\"n\": 1}}\n</tool_call>\n"
      "<tool_call>\n{\"name\": \"b\", \"arguments\": {}}\n</tool_call>";
  for (size_t n : {1, 2, 5, 11, 1000}) {
    std::vector<ToolCallPiece> pieces = stream_pieces(output, n);
    std::vector<std::string> names;
    for (const ToolCallPiece& p : pieces) {
      if (p.is_call) names.push_back(p.call.name);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"a", "b"})) << "pieces of " << n;
    // The newline before the first call is dropped when it arrives on its own.
    std::string text = joined_text(pieces);
    EXPECT_TRUE(text == "Plan:\n" || text == "Plan:") << text << " in pieces of " << n;
  }
}

TEST(ToolCallParser, StreamedBareJsonIsHeldToTheEnd) {
  ToolCallParser parser;
  EXPECT_TRUE(parser.feed("{\"name\": \"f\",").empty());
  EXPECT_TRUE(parser.feed(" \"arguments\": {}}").empty());
  std::vector<ToolCallPiece> end = parser.finish();
  ASSERT_EQ(end.size(), 1u);
  EXPECT_TRUE(end[0].is_call);
  EXPECT_EQ(end[0].call.name, "f");
}

TEST(ToolCallParser, MistralArrayOfCallsAfterItsTag) {
  const std::string output =
      "[TOOL_CALLS] [{\"name\": \"a\", \"arguments\": {\"x\": 1}}, {\"name\": \"b\", \"arguments\": {}}]";
  for (size_t n : {size_t{1}, size_t{3}, output.size()}) {
    std::vector<ToolCallPiece> pieces = stream_pieces(output, n);
    ASSERT_EQ(pieces.size(), 2u) << "pieces of " << n;
    EXPECT_TRUE(pieces[0].is_call);
    EXPECT_EQ(pieces[0].call.name, "a");
    EXPECT_EQ(pieces[0].call.arguments_json, R"({"x":1})");
    EXPECT_EQ(pieces[1].call.name, "b");
  }
  // The same array without the tag (a detokenizer that skips special tokens).
  ParsedOutput bare = parse_tool_calls(output.substr(std::string("[TOOL_CALLS] ").size()));
  ASSERT_EQ(bare.calls.size(), 2u);
  EXPECT_EQ(bare.content, "");
}

TEST(ToolCallParser, LlamaPythonTagBeforeABareCall) {
  const std::string output = "<|python_tag|>{\"name\": \"search\", \"parameters\": {\"q\": \"cats\"}}";
  for (size_t n : {size_t{1}, size_t{5}, output.size()}) {
    std::vector<ToolCallPiece> pieces = stream_pieces(output, n);
    ASSERT_EQ(pieces.size(), 1u) << "pieces of " << n;
    EXPECT_TRUE(pieces[0].is_call);
    EXPECT_EQ(pieces[0].call.name, "search");
    EXPECT_EQ(pieces[0].call.arguments_json, R"({"q":"cats"})");
  }
}

TEST(ToolCallParser, TaggedOrBracketedTextThatIsNotCallsComesBackWordForWord) {
  for (const std::string& output : {std::string("[1] See the notes.\n"), std::string("[TOOL_CALLS] not json"),
                                    std::string("<|python_tag|>print(42)"), std::string("[TOOL"),
                                    std::string("[{\"name\": \"a\", \"arguments\": {}}, 7]"), std::string("[]"),
                                    std::string("<b>bold</b>")}) {
    ParsedOutput out = parse_tool_calls(output);
    EXPECT_TRUE(out.calls.empty()) << output;
    EXPECT_EQ(out.content, output);
    EXPECT_EQ(joined_text(stream_pieces(output, 1)), output);
  }
}

// Random outputs made of pieces that matter to the parser (tags, call JSON, broken JSON,
// brackets, text, whitespace), fed in random splits: streaming gives the whole-output answer,
// and an output without calls comes back byte for byte.
TEST(ToolCallParser, RandomOutputsInRandomPiecesKeepEveryByteAndTheCalls) {
  const std::vector<std::string> parts = {
      "<tool_call>", "</tool_call>", "<tool_", "<|python_tag|>", "[TOOL_CALLS]", "[TOOL", "{", "}", "[", "]",
      "{\"name\": \"f\", \"arguments\": {\"a\": [1, 2]}}", "{\"name\": \"g\", \"parameters\": {}}",
      "{\"name\": 3}", ", ", "\"", "text", " ", "\n", "caf\xc3\xa9", "<", "|",
      "<tool_call>{\"name\": \"h\", \"arguments\": {}}</tool_call>",
      "<tool_call>{\"name\": \"h\", \"arguments\": {}}</tool_call>"};
  std::mt19937 rng(7);
  int with_calls = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string output;
    const int n_parts = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < n_parts; ++i) output += parts[rng() % parts.size()];
    const ParsedOutput whole = parse_tool_calls(output);
    ToolCallParser parser;
    std::vector<ToolCallPiece> pieces;
    for (size_t at = 0; at < output.size();) {
      const size_t n = 1 + rng() % 6;
      for (ToolCallPiece& p : parser.feed(std::string_view(output).substr(at, n))) pieces.push_back(std::move(p));
      at += n;
    }
    for (ToolCallPiece& p : parser.finish()) pieces.push_back(std::move(p));
    std::vector<std::string> names;
    for (const ToolCallPiece& p : pieces) {
      if (p.is_call) names.push_back(p.call.name);
    }
    ASSERT_EQ(names.size(), whole.calls.size()) << output;
    with_calls += !names.empty();
    for (size_t i = 0; i < names.size(); ++i) ASSERT_EQ(names[i], whole.calls[i].name) << output;
    if (whole.calls.empty()) {
      ASSERT_EQ(whole.content, output);
      ASSERT_EQ(joined_text(pieces), output);
    }
  }
  // Both kinds of output were drawn often.
  EXPECT_GT(with_calls, 100);
  EXPECT_LT(with_calls, 2900);
}

TEST(ToolCallParser, PlainTextWithoutCallsIsUnchanged) {
  const std::string output = "  Hello, world.\n\n";
  EXPECT_EQ(parse_tool_calls(output).content, output);
  EXPECT_EQ(joined_text(stream_pieces(output, 1)), output);
}

// "TEXT|" per text piece and "CALL(name args raw)|" per call.
std::string rendered(const std::vector<ToolCallPiece>& pieces) {
  std::string out;
  for (const ToolCallPiece& p : pieces) {
    out += p.is_call ? "CALL(" + p.call.name + " " + p.call.arguments_json + (p.call.arguments_raw ? " raw" : "") + ")|"
                     : p.text + "|";
  }
  return out;
}

// A call fed already parsed comes out as the same call in a <tool_call> block would, with the
// text before it, whatever that text had left undecided (whitespace, a tag begun, bare JSON).
TEST(ToolCallParser, FedCallComesOutAsTheSameCallInABlockWould) {
  const ParsedToolCall call{"f", "{\"a\":1}", false};
  const std::string block = "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>";
  for (const std::string& before : {std::string(""), std::string(" \n"), std::string("Checking."),
                                    std::string("Checking <tool_"), std::string("{\"x\": "), std::string("[1]"),
                                    std::string("<|python"), std::string(" [TOOL_CALLS]")}) {
    for (const std::string& after : {std::string(""), std::string("\n"), std::string(" Done."), std::string("{\"y\": 2}")}) {
      ToolCallParser as_text;
      std::vector<ToolCallPiece> expected = as_text.feed(before + block + after);
      for (ToolCallPiece& p : as_text.finish()) expected.push_back(std::move(p));
      ToolCallParser as_call;
      std::vector<ToolCallPiece> got = as_call.feed_call(before, call);
      for (ToolCallPiece& p : as_call.feed(after)) got.push_back(std::move(p));
      for (ToolCallPiece& p : as_call.finish()) got.push_back(std::move(p));
      EXPECT_EQ(rendered(got), rendered(expected)) << "[" << before << "] [" << after << "]";
      EXPECT_EQ(as_call.n_calls(), 1);
    }
  }
}

// A call cannot be read as part of text: one that comes inside a <tool_call> block the text
// opened leaves that block as text, and its raw arguments stay as they are.
TEST(ToolCallParser, FedCallIsNeverReadAsPartOfTheText) {
  ToolCallParser parser;
  std::vector<ToolCallPiece> pieces = parser.feed("Note <tool_call>{\"name\": ");
  for (ToolCallPiece& p : parser.feed_call("", {"f", "</tool_call>x", true})) pieces.push_back(std::move(p));
  for (ToolCallPiece& p : parser.feed("\"g\"}</tool_call>")) pieces.push_back(std::move(p));
  for (ToolCallPiece& p : parser.finish()) pieces.push_back(std::move(p));
  EXPECT_EQ(rendered(pieces), "Note |<tool_call>{\"name\": |CALL(f </tool_call>x raw)|\"g\"}</tool_call>|");
}

TEST(ToolCallParser, PlacedCallsGoBetweenTheTextAtTheirPlaces) {
  const ParsedOutput out = parse_tool_calls("Checking.\n\nDone.", {{9, {"a", "{}", false}}, {11, {"b", "x", true}}});
  EXPECT_EQ(out.content, "Checking.\n\nDone.");
  ASSERT_EQ(out.calls.size(), 2u);
  EXPECT_EQ(out.calls[0].name, "a");
  EXPECT_EQ(out.calls[1].name, "b");
  EXPECT_TRUE(out.calls[1].arguments_raw);
  EXPECT_EQ(parse_tool_calls("  ", {{1, {"a", "{}", false}}}).content, "");
}

}  // namespace
}  // namespace strata::server
