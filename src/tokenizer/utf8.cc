#include "tokenizer/utf8.h"
#include "base/utf8_encode.h"

namespace strata {
namespace {

bool is_continuation(uint8_t byte) { return (byte & 0xC0) == 0x80; }

// Allowed range of the second byte for a lead byte; narrower than 80..BF for the leads whose
// full range would admit overlong forms, surrogates or code points above U+10FFFF.
void second_byte_range(uint8_t lead, uint8_t* lo, uint8_t* hi) {
  *lo = 0x80;
  *hi = 0xBF;
  if (lead == 0xE0) *lo = 0xA0;
  if (lead == 0xED) *hi = 0x9F;
  if (lead == 0xF0) *lo = 0x90;
  if (lead == 0xF4) *hi = 0x8F;
}

size_t sequence_length(uint8_t lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;  // continuation byte, C0, C1 or F5..FF: never a lead
}

}  // namespace

Utf8Scan utf8_scan(std::string_view text, size_t pos) {
  const auto lead = static_cast<uint8_t>(text[pos]);
  const size_t n = sequence_length(lead);
  if (n == 0) return {Utf8Step::kInvalid, 1};
  if (n == 1) return {Utf8Step::kComplete, 1};
  for (size_t k = 1; k < n; ++k) {
    if (pos + k >= text.size()) return {Utf8Step::kTruncated, k};
    const auto byte = static_cast<uint8_t>(text[pos + k]);
    bool ok = is_continuation(byte);
    if (k == 1) {
      uint8_t lo, hi;
      second_byte_range(lead, &lo, &hi);
      ok = byte >= lo && byte <= hi;
    }
    // The bytes before this one are a maximal invalid prefix; they are garbage together.
    if (!ok) return {Utf8Step::kInvalid, k};
  }
  return {Utf8Step::kComplete, n};
}

size_t utf8_char_length(std::string_view text, size_t pos) {
  return utf8_scan(text, pos).length;
}

bool utf8_is_valid(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    const Utf8Scan scan = utf8_scan(text, pos);
    if (scan.step != Utf8Step::kComplete) return false;
    pos += scan.length;
  }
  return true;
}

void utf8_append(std::string* out, char32_t cp) {
  append_utf8(static_cast<uint32_t>(cp), out);
}

char32_t utf8_decode_at(std::string_view text, size_t pos) {
  const Utf8Scan scan = utf8_scan(text, pos);
  if (scan.step != Utf8Step::kComplete) return 0xFFFD;
  const auto lead = static_cast<uint8_t>(text[pos]);
  if (scan.length == 1) return lead;
  static constexpr uint8_t kLeadMask[5] = {0, 0, 0x1F, 0x0F, 0x07};
  char32_t cp = lead & kLeadMask[scan.length];
  for (size_t k = 1; k < scan.length; ++k) {
    cp = (cp << 6) | (static_cast<uint8_t>(text[pos + k]) & 0x3F);
  }
  return cp;
}

}  // namespace strata
