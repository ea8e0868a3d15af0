// ByteUnicodeMap: the GPT-2 byte-level BPE alphabet, a bijection between the 256 byte values and
// 256 printable Unicode characters. Byte-level vocabularies store every token in this alphabet
// (a leading space shows as "Ġ"), so text is mapped before merging and mapped back to decode.
//
// Bytes that are printable Latin-1 (except the soft hyphen) map to themselves; the other 68
// bytes map, in increasing order, to U+0100, U+0101, ... Immutable after construction; safe to
// share between threads.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace strata {

class ByteUnicodeMap {
 public:
  ByteUnicodeMap();

  // The UTF-8 encoding of the character that stands for byte.
  const std::string& encode_byte(uint8_t byte) const { return byte_to_utf8_[byte]; }
  // Appends the mapped form of every byte of raw to out.
  void encode(std::string_view raw, std::string* out) const;
  // Appends the bytes that mapped (a string in the alphabet) stands for; false, with out
  // unspecified, when mapped holds a character outside the alphabet.
  bool decode(std::string_view mapped, std::string* out) const;

 private:
  static constexpr char32_t kMaxCodePoint = 0x143;  // 0x100 + 68 - 1
  std::array<std::string, 256> byte_to_utf8_;
  std::array<int16_t, kMaxCodePoint + 1> code_point_to_byte_;  // -1 when not in the alphabet
};

}  // namespace strata
