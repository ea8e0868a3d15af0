#include "tokenizer/byte_unicode.h"

#include "tokenizer/utf8.h"

namespace strata {
namespace {

bool maps_to_itself(int byte) {
  return (byte >= '!' && byte <= '~') || (byte >= 0xA1 && byte <= 0xAC) || (byte >= 0xAE && byte <= 0xFF);
}

}  // namespace

ByteUnicodeMap::ByteUnicodeMap() {
  code_point_to_byte_.fill(-1);
  char32_t next_shifted = 0x100;
  for (int byte = 0; byte < 256; ++byte) {
    const char32_t cp = maps_to_itself(byte) ? static_cast<char32_t>(byte) : next_shifted++;
    utf8_append(&byte_to_utf8_[byte], cp);
    code_point_to_byte_[cp] = static_cast<int16_t>(byte);
  }
}

void ByteUnicodeMap::encode(std::string_view raw, std::string* out) const {
  for (char c : raw) out->append(byte_to_utf8_[static_cast<uint8_t>(c)]);
}

bool ByteUnicodeMap::decode(std::string_view mapped, std::string* out) const {
  size_t pos = 0;
  while (pos < mapped.size()) {
    const Utf8Scan scan = utf8_scan(mapped, pos);
    if (scan.step != Utf8Step::kComplete) return false;
    const char32_t cp = utf8_decode_at(mapped, pos);
    if (cp > kMaxCodePoint || code_point_to_byte_[cp] < 0) return false;
    out->push_back(static_cast<char>(code_point_to_byte_[cp]));
    pos += scan.length;
  }
  return true;
}

}  // namespace strata
