// PythonLiteralReader: reads Python literals, as a model trained to call tools in Python's call
// syntax writes its arguments (Liquid's LFM2: tool_call_lfm2.h), into JSON values:
//  - strings between ' or " (or tripled), with an optional r / u prefix, Python's escapes
//    (\n \t \\ \' \xHH \uHHHH \UHHHHHHHH, octal; a surrogate pair written as two \u escapes is one
//    character, a lone surrogate U+FFFD; an unknown escape keeps its backslash, as Python does),
//    adjacent strings concatenated; raw newlines inside are kept (the chat template writes values
//    back unescaped), as is every other byte;
//  - ints (decimal, 0x / 0o / 0b, '_' between digits) and floats, signed; True, False, None (and
//    JSON's true, false, null, which small models mix in);
//  - lists, tuples (JSON arrays), dicts (JSON objects: keys in the order written, a repeated key's
//    last value at its first place, as Python's dict; a number, bool or None key as JSON text, as
//    json.dumps writes it), nested, trailing commas allowed.
// Anything else is refused: a bare word, a set, a call, an f- or b-string, an unterminated
// string, \N{...}, a float that overflows, an int beyond 64 bits in hex / octal / binary, nesting
// deeper than 64, a dict of more keys than a request may hold.
//
// One reader walks one text on one thread; it holds a view of the text, which must outlive it.
// Never throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/request_json.h"

namespace strata::server {

class PythonLiteralReader {
 public:
  explicit PythonLiteralReader(std::string_view text) : text_(text) {}

  // One literal after any whitespace into *out; false when the text there is none (the position
  // is then somewhere inside it).
  bool read_value(RequestJson* out) { return read_value_at(out, 0); }
  // A name after any whitespace: a run of ASCII letters, digits, '_', '-', '.' and non-ASCII bytes
  // (a tool's name or a keyword); false, nothing taken, when there is none.
  bool read_name(std::string* out);
  // The byte c after any whitespace: taken and true; false (only whitespace taken) otherwise.
  bool take(char c);
  // Space, tab, CR and LF.
  void skip_space();
  bool at_end() const { return pos_ >= text_.size(); }

 private:
  bool read_value_at(RequestJson* out, int depth);
  // One or more adjacent string literals, concatenated.
  bool read_strings(RequestJson* out);
  bool read_string(std::string* out);
  // The escape at pos_ (its backslash) appended to *out; in a raw string kept as written.
  bool read_escape(bool raw, std::string* out);
  // Up to count digits of base at pos_ as a code point (exactly count when exact).
  bool read_code_point(int base, size_t count, bool exact, uint32_t* out);
  // A \uD800-\uDBFF escape's value joined with a low surrogate escape after it; U+FFFD for a lone
  // surrogate.
  uint32_t join_surrogates(uint32_t high);
  bool read_number(RequestJson* out);
  // 0x / 0o / 0b and its digits, at pos_ (after any sign).
  bool read_based_int(bool negative, RequestJson* out);
  // Digits of base at pos_, '_' between them dropped.
  std::string read_digits(int base);
  bool read_word(RequestJson* out);
  // Items up to close (a list's ']', a tuple's ')'), after the opener; trailing comma allowed.
  bool read_items(char close, RequestJson* out, int depth);
  // '(' ... ')': a tuple, or a parenthesized value when it holds one value and no comma.
  bool read_parenthesized(RequestJson* out, int depth);
  bool read_dict(RequestJson* out, int depth);
  char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace strata::server
