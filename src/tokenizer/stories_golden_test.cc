// The tokenizer of the real stories260K model against the figures of its golden file
// (../shared/models/stories260K.golden.json, from two independent implementations).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gguf/gguf_file.h"
#include "tokenizer/stream_decoder.h"
#include "tokenizer/tokenizer.h"

namespace strata {
namespace {

struct Stories {
  std::unique_ptr<Tokenizer> tokenizer;
  nlohmann::json golden;
};

Stories load_stories() {
  const std::string dir = std::string(STRATA_SHARED_DIR) + "/models/";
  Stories stories;
  std::ifstream in(dir + "stories260K.golden.json");
  stories.golden = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  EXPECT_TRUE(stories.golden.is_object()) << "cannot read stories260K.golden.json";
  Result<GgufFile> gguf = GgufFile::Open(dir + "stories260K.gguf");
  EXPECT_TRUE(gguf.ok()) << gguf.status().ToString();
  if (!gguf.ok()) return stories;
  Result<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::FromGguf(*gguf);
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  if (tokenizer.ok()) stories.tokenizer = std::move(tokenizer).value();
  return stories;
}

TEST(StoriesGoldenTest, PromptGivesTheGoldenIds) {
  Stories stories = load_stories();
  ASSERT_NE(stories.tokenizer, nullptr);
  const std::string prompt = stories.golden["prompt"].get<std::string>();
  const std::vector<int32_t> want = stories.golden["prompt_ids_with_bos"].get<std::vector<int32_t>>();
  EXPECT_EQ(stories.tokenizer->encode(prompt, /*add_special=*/true, /*parse_special=*/false), want);
  EXPECT_EQ(stories.tokenizer->n_vocab(), 512);
  EXPECT_EQ(stories.tokenizer->pad(), -1);  // stored as 0xFFFFFFFF, meaning none
}

TEST(StoriesGoldenTest, GoldenContinuationDecodesToTheGoldenText) {
  Stories stories = load_stories();
  ASSERT_NE(stories.tokenizer, nullptr);
  std::vector<int32_t> ids = stories.golden["prompt_ids_with_bos"].get<std::vector<int32_t>>();
  const std::vector<int32_t> continuation = stories.golden["greedy_continuation_ids"].get<std::vector<int32_t>>();
  ids.insert(ids.end(), continuation.begin(), continuation.end());
  const std::string want = stories.golden["greedy_text_starts_with"].get<std::string>();
  const std::string text = stories.tokenizer->decode(ids, /*skip_special=*/true);
  EXPECT_EQ(text.substr(0, want.size()), want);

  // Streaming the continuation after the prompt yields the same text as decoding it all.
  StreamDecoder stream(*stories.tokenizer);
  std::string streamed = stories.golden["prompt"].get<std::string>();
  for (int32_t id : continuation) streamed += stream.push(id);
  streamed += stream.flush();
  EXPECT_EQ(streamed, text);
}

}  // namespace
}  // namespace strata
