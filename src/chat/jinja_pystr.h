// Python string and number semantics that templates rely on: str/repr of floats and strings,
// code-point (not byte) indexing of UTF-8 text, and the str methods strip/split/title...
// Stateless functions; safe from any thread. Invalid UTF-8 bytes count as one code point each,
// so malformed text never makes these fail.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::jinja {

// Python repr(float): shortest round-trip digits, "1.0", "1e-05", "1e+16", "inf", "nan".
std::string python_float_repr(double d);
// Python repr(str): quoted with ' (or " when the text holds ' but no "), escapes control bytes.
std::string python_string_repr(std::string_view s);

// Decodes the code point starting at *pos and advances *pos past it.
uint32_t utf8_next(std::string_view s, size_t* pos);
void utf8_append(uint32_t cp, std::string* out);
// Byte offsets of every code point start, followed by s.size().
std::vector<size_t> utf8_boundaries(std::string_view s);
size_t utf8_length(std::string_view s);

bool is_python_space(uint32_t cp);
// str.strip / lstrip / rstrip; chars == nullopt strips whitespace.
std::string python_strip(std::string_view s, const std::optional<std::string>& chars, bool left, bool right);
// str.split(sep, maxsplit); sep == nullopt splits on whitespace runs. sep must not be empty.
std::vector<std::string> python_split(std::string_view s, const std::optional<std::string>& sep, int64_t maxsplit);
// str.replace(old, new, count); count < 0 replaces all.
std::string python_replace(std::string_view s, std::string_view from, std::string_view to, int64_t count);
// Case mapping covers ASCII letters only; other code points pass through unchanged.
std::string ascii_upper(std::string_view s);
std::string ascii_lower(std::string_view s);
std::string python_capitalize(std::string_view s);  // "hELLO wORLD" -> "Hello world"
std::string python_title(std::string_view s);       // str.title(): "hello wORLD-x" -> "Hello World-X"

}  // namespace strata::jinja
