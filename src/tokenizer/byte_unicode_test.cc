#include "tokenizer/byte_unicode.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "tokenizer/utf8.h"

namespace strata {
namespace {

TEST(ByteUnicodeMapTest, MapsEveryByteToADistinctPrintableCharacter) {
  ByteUnicodeMap map;
  std::set<std::string> seen;
  for (int byte = 0; byte < 256; ++byte) {
    const std::string& ch = map.encode_byte(static_cast<uint8_t>(byte));
    ASSERT_TRUE(utf8_is_valid(ch));
    ASSERT_EQ(utf8_char_length(ch, 0), ch.size()) << "byte " << byte << " maps to more than one character";
    seen.insert(ch);
  }
  EXPECT_EQ(seen.size(), 256u);
}

TEST(ByteUnicodeMapTest, UsesTheGpt2Alphabet) {
  ByteUnicodeMap map;
  EXPECT_EQ(map.encode_byte('A'), "A");
  EXPECT_EQ(map.encode_byte(' '), "\xC4\xA0");   // U+0120 "Ġ"
  EXPECT_EQ(map.encode_byte('\n'), "\xC4\x8A");  // U+010A "Ċ"
  EXPECT_EQ(map.encode_byte(0), "\xC4\x80");     // U+0100
  EXPECT_EQ(map.encode_byte(0xAD), "\xC5\x83");  // soft hyphen -> U+0143, the last shifted one
  EXPECT_EQ(map.encode_byte(0xE9), "\xC3\xA9");  // é stays é
}

TEST(ByteUnicodeMapTest, DecodeInvertsEncodeForAllBytes) {
  ByteUnicodeMap map;
  std::string raw;
  for (int byte = 0; byte < 256; ++byte) raw.push_back(static_cast<char>(byte));
  std::string mapped;
  map.encode(raw, &mapped);
  std::string back;
  ASSERT_TRUE(map.decode(mapped, &back));
  ASSERT_EQ(back.size(), raw.size());
  EXPECT_EQ(0, std::memcmp(back.data(), raw.data(), raw.size()));
}

TEST(ByteUnicodeMapTest, DecodeRejectsCharactersOutsideTheAlphabet) {
  ByteUnicodeMap map;
  std::string out;
  EXPECT_FALSE(map.decode("\xE4\xB8\x96", &out));  // 世
  EXPECT_FALSE(map.decode(" ", &out));             // a raw space is not in the alphabet
}

}  // namespace
}  // namespace strata
