#include "tokenizer/utf8.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

TEST(Utf8ScanTest, ClassifiesCompleteCharactersByLength) {
  EXPECT_EQ(utf8_scan("a", 0).length, 1u);
  EXPECT_EQ(utf8_scan("\xC3\xA9", 0).length, 2u);          // é
  EXPECT_EQ(utf8_scan("\xE2\x82\xAC", 0).length, 3u);      // €
  EXPECT_EQ(utf8_scan("\xF0\x9F\x98\x80", 0).length, 4u);  // 😀
  EXPECT_EQ(utf8_scan("\xF0\x9F\x98\x80", 0).step, Utf8Step::kComplete);
}

TEST(Utf8ScanTest, ReportsTruncatedPrefixesAsTruncated) {
  const Utf8Scan scan = utf8_scan("\xF0\x9F\x98", 0);
  EXPECT_EQ(scan.step, Utf8Step::kTruncated);
  EXPECT_EQ(scan.length, 3u);
  EXPECT_EQ(utf8_scan("\xE2", 0).step, Utf8Step::kTruncated);
}

TEST(Utf8ScanTest, RejectsOverlongSurrogateAndOutOfRangeForms) {
  EXPECT_EQ(utf8_scan("\xC0\x80", 0).step, Utf8Step::kInvalid);      // overlong NUL
  EXPECT_EQ(utf8_scan("\xE0\x80\x80", 0).step, Utf8Step::kInvalid);  // overlong 3-byte
  EXPECT_EQ(utf8_scan("\xED\xA0\x80", 0).step, Utf8Step::kInvalid);  // U+D800
  EXPECT_EQ(utf8_scan("\xF4\x90\x80\x80", 0).step, Utf8Step::kInvalid);  // U+110000
  EXPECT_EQ(utf8_scan("\x80", 0).step, Utf8Step::kInvalid);          // lone continuation
  EXPECT_EQ(utf8_scan("\xFF", 0).step, Utf8Step::kInvalid);
  // A valid start cut short by a non-continuation byte is one unit of garbage of the valid part.
  const Utf8Scan cut = utf8_scan("\xE2\x82" "a", 0);
  EXPECT_EQ(cut.step, Utf8Step::kInvalid);
  EXPECT_EQ(cut.length, 2u);
}

TEST(Utf8ScanTest, EncodesAndDecodesEveryScalarValue) {
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    std::string s;
    utf8_append(&s, cp);
    const auto code = static_cast<uint32_t>(cp);
    ASSERT_TRUE(utf8_is_valid(s)) << std::hex << code;
    ASSERT_EQ(utf8_char_length(s, 0), s.size()) << std::hex << code;
    ASSERT_EQ(static_cast<uint32_t>(utf8_decode_at(s, 0)), code);
  }
}

TEST(Utf8ScanTest, ValidatesWholeStrings) {
  EXPECT_TRUE(utf8_is_valid(""));
  EXPECT_TRUE(utf8_is_valid("h\xC3\xA9llo \xE4\xB8\x96\xE7\x95\x8C"));
  EXPECT_FALSE(utf8_is_valid("abc\xE4\xB8"));
  EXPECT_FALSE(utf8_is_valid("\xC3(abc"));
}

}  // namespace
}  // namespace strata
