#include "tokenizer/vocab.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace strata {
namespace {

// Texts that share prefixes, lengths and bytes (the empty one and long ones too), so the index
// sees collisions in its probes as a real vocabulary does.
std::vector<std::string> many_texts(int n) {
  std::vector<std::string> texts;
  for (int i = 0; i < n; ++i) {
    std::string t = i % 7 == 0 ? std::string(static_cast<size_t>(i % 40), 'x') + std::to_string(i) : std::to_string(i);
    if (i % 5 == 0) t = "\xC4\xA0" + t;
    texts.push_back(t);
  }
  texts.push_back("");
  return texts;
}

TEST(VocabTest, FindsEveryTextAtItsId) {
  const std::vector<std::string> texts = many_texts(20000);
  Vocab vocab(texts, {}, {});
  for (size_t id = 0; id < texts.size(); ++id) ASSERT_EQ(vocab.find(texts[id]), static_cast<int32_t>(id)) << texts[id];
  EXPECT_EQ(vocab.find("not a token"), -1);
  EXPECT_EQ(vocab.find("20000"), -1);
  EXPECT_EQ(vocab.find(std::string_view("12\0", 3)), -1);
}

TEST(VocabTest, ARepeatedTextFindsItsFirstId) {
  std::vector<std::string> texts = many_texts(3000);
  const size_t n = texts.size();
  texts.push_back(texts[17]);
  texts.push_back(texts[0]);
  texts.push_back(texts[17]);
  Vocab vocab(texts, {}, {});
  EXPECT_EQ(vocab.n_tokens(), static_cast<int32_t>(n + 3));
  EXPECT_EQ(vocab.find(texts[17]), 17);
  EXPECT_EQ(vocab.find(texts[0]), 0);
  EXPECT_EQ(vocab.text(static_cast<int32_t>(n + 2)), texts[17]);
}

TEST(VocabTest, AnEmptyVocabularyFindsNothing) {
  Vocab vocab({}, {}, {});
  EXPECT_EQ(vocab.n_tokens(), 0);
  EXPECT_EQ(vocab.find("a"), -1);
  EXPECT_EQ(vocab.find(""), -1);
}

}  // namespace
}  // namespace strata
