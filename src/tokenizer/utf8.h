// UTF-8 scanning for the tokenizer: splitting text into characters, checking validity, and
// finding where a byte stream can be cut without breaking a character.
//
// Pure functions over byte strings; no state, safe from any thread. Validity follows RFC 3629:
// no overlong forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace strata {

enum class Utf8Step : uint8_t {
  kComplete,   // a whole, valid character of `length` bytes
  kTruncated,  // the bytes left are a valid start of a character that needs more bytes
  kInvalid,    // `length` bytes (>= 1) that can never be part of a valid character
};

struct Utf8Scan {
  Utf8Step step;
  size_t length;
};

// Classifies the character starting at text[pos] (pos < text.size()).
Utf8Scan utf8_scan(std::string_view text, size_t pos);

// Byte length of the character at text[pos]: its full length when complete, else the number of
// bytes that form one unit of garbage (so a loop over text always advances and tiles it).
size_t utf8_char_length(std::string_view text, size_t pos);

bool utf8_is_valid(std::string_view text);

// Appends the UTF-8 encoding of code_point (which must be a Unicode scalar value).
void utf8_append(std::string* out, char32_t code_point);

// Decodes the single complete character at text[pos]; returns U+FFFD when it is not one.
char32_t utf8_decode_at(std::string_view text, size_t pos);

}  // namespace strata
