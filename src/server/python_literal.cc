#include "server/python_literal.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>
#include <utility>

#include "base/utf8_encode.h"

namespace strata::server {

namespace {

constexpr int kMaxPythonLiteralDepth = 64;

bool is_python_quote(char c) { return c == '\'' || c == '"'; }

bool is_ascii_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// What may follow a number or a word: not a letter, digit or '_' (1j, 3abc, Nonesuch are not literals).
bool ends_token(char c) { return !is_ascii_alnum(c) && c != '_'; }

bool is_python_name_byte(char c) {
  return static_cast<unsigned char>(c) >= 0x80 || is_ascii_alnum(c) || c == '_' || c == '-' || c == '.';
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

bool is_digit_of(char c, int base) { return digit_value(c) < base; }

bool is_string_prefix(char c) { return c == 'r' || c == 'R' || c == 'u' || c == 'U'; }

// A dict key as the JSON key json.dumps makes of it: a string as it is, a number, bool or None as
// its JSON text; a list or dict (unhashable in Python) is no key.
bool python_key_text(const RequestJson& key, std::string* out) {
  if (key.is_array() || key.is_object()) return false;
  *out = key.is_string() ? key.get<std::string>() : key.dump();
  return true;
}

}  // namespace

void PythonLiteralReader::skip_space() {
  while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\r' || text_[pos_] == '\n')) {
    ++pos_;
  }
}

bool PythonLiteralReader::take(char c) {
  skip_space();
  if (peek() != c || at_end()) return false;
  ++pos_;
  return true;
}

bool PythonLiteralReader::read_name(std::string* out) {
  skip_space();
  size_t end = pos_;
  while (end < text_.size() && is_python_name_byte(text_[end])) ++end;
  if (end == pos_) return false;
  *out = std::string(text_.substr(pos_, end - pos_));
  pos_ = end;
  return true;
}

bool PythonLiteralReader::read_value_at(RequestJson* out, int depth) {
  if (depth >= kMaxPythonLiteralDepth) return false;
  skip_space();
  const char c = peek();
  if (is_python_quote(c) || (is_string_prefix(c) && is_python_quote(peek(1)))) return read_strings(out);
  if (c == '[') {
    ++pos_;
    return read_items(']', out, depth);
  }
  if (c == '(') return read_parenthesized(out, depth);
  if (c == '{') return read_dict(out, depth);
  if (c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9')) return read_number(out);
  return read_word(out);
}

bool PythonLiteralReader::read_strings(RequestJson* out) {
  std::string text;
  do {
    if (!read_string(&text)) return false;
    skip_space();
  } while (is_python_quote(peek()) || (is_string_prefix(peek()) && is_python_quote(peek(1))));
  *out = std::move(text);
  return true;
}

bool PythonLiteralReader::read_string(std::string* out) {
  bool raw = false;
  if (!is_python_quote(peek())) {
    raw = peek() == 'r' || peek() == 'R';
    ++pos_;
  }
  const char quote = peek();
  const bool triple = peek(1) == quote && peek(2) == quote;
  pos_ += triple ? 3 : 1;
  for (;;) {
    if (at_end()) return false;  // never closed
    const char c = text_[pos_];
    if (c == quote && (!triple || (peek(1) == quote && peek(2) == quote))) {
      pos_ += triple ? 3 : 1;
      return true;
    }
    if (c == '\\') {
      if (!read_escape(raw, out)) return false;
      continue;
    }
    out->push_back(c);
    ++pos_;
  }
}

bool PythonLiteralReader::read_escape(bool raw, std::string* out) {
  ++pos_;  // the backslash
  if (at_end()) return false;
  const char e = text_[pos_++];
  if (raw) {  // kept as written; the escaped quote still does not close the string
    out->push_back('\\');
    out->push_back(e);
    return true;
  }
  uint32_t cp = 0;
  switch (e) {
    case '\n': return true;  // a line continued
    case '\r':
      if (peek() == '\n') ++pos_;
      return true;
    case '\\': case '\'': case '"': out->push_back(e); return true;
    case 'a': out->push_back('\a'); return true;
    case 'b': out->push_back('\b'); return true;
    case 'f': out->push_back('\f'); return true;
    case 'n': out->push_back('\n'); return true;
    case 'r': out->push_back('\r'); return true;
    case 't': out->push_back('\t'); return true;
    case 'v': out->push_back('\v'); return true;
    case 'x': if (!read_code_point(16, 2, true, &cp)) return false; break;
    case 'u':
      if (!read_code_point(16, 4, true, &cp)) return false;
      cp = join_surrogates(cp);
      break;
    case 'U':
      if (!read_code_point(16, 8, true, &cp) || cp > 0x10FFFF) return false;
      if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
      break;
    case 'N': return false;  // a character by name: no table of names here
    default:
      if (e >= '0' && e <= '7') {
        --pos_;
        read_code_point(8, 3, false, &cp);
        break;
      }
      out->push_back('\\');  // not an escape: Python keeps the backslash
      out->push_back(e);
      return true;
  }
  append_utf8(cp, out);
  return true;
}

bool PythonLiteralReader::read_code_point(int base, size_t count, bool exact, uint32_t* out) {
  uint32_t value = 0;
  size_t n = 0;
  while (n < count && is_digit_of(peek(), base)) {
    value = value * static_cast<uint32_t>(base) + static_cast<uint32_t>(digit_value(peek()));
    ++pos_;
    ++n;
  }
  if (n == 0 || (exact && n < count)) return false;
  *out = value;
  return true;
}

uint32_t PythonLiteralReader::join_surrogates(uint32_t high) {
  if (high < 0xD800 || high > 0xDFFF) return high;
  if (high > 0xDBFF || peek() != '\\' || peek(1) != 'u') return 0xFFFD;
  const size_t at = pos_;
  pos_ += 2;
  uint32_t low = 0;
  if (read_code_point(16, 4, true, &low) && low >= 0xDC00 && low <= 0xDFFF) {
    return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
  }
  pos_ = at;  // not a low surrogate: read on its own
  return 0xFFFD;
}

std::string PythonLiteralReader::read_digits(int base) {
  std::string digits;
  while (is_digit_of(peek(), base) || (peek() == '_' && !digits.empty() && is_digit_of(peek(1), base))) {
    if (peek() != '_') digits.push_back(peek());
    ++pos_;
  }
  return digits;
}

bool PythonLiteralReader::read_number(RequestJson* out) {
  bool negative = false;
  if (peek() == '-' || peek() == '+') {
    negative = peek() == '-';
    ++pos_;
  }
  const char kind = static_cast<char>(peek(1) | 0x20);
  if (peek() == '0' && (kind == 'x' || kind == 'o' || kind == 'b')) return read_based_int(negative, out);
  std::string whole = read_digits(10);
  std::string fraction, exponent;
  const bool dot = peek() == '.';
  if (dot) {
    ++pos_;
    fraction = read_digits(10);
  }
  if (whole.empty() && fraction.empty()) return false;
  if (peek() == 'e' || peek() == 'E') {
    ++pos_;
    if (peek() == '+' || peek() == '-') exponent.push_back(text_[pos_++]);
    const std::string digits = read_digits(10);
    if (digits.empty()) return false;
    exponent = "e" + exponent + digits;
  }
  if (!ends_token(peek())) return false;
  // As JSON writes it: no leading zeros, a digit on both sides of the point; a float stays one.
  const size_t nonzero = whole.find_first_not_of('0');
  if (nonzero == std::string::npos) {
    whole = "0";
  } else {
    whole.erase(0, nonzero);
  }
  std::string json_text = (negative ? "-" : "") + whole;
  if (dot || !exponent.empty()) json_text += "." + (fraction.empty() ? std::string("0") : fraction) + exponent;
  OrderedJsonParse parsed = parse_ordered_json(json_text);
  if (parsed.error != OrderedJsonParse::Error::kNone || !parsed.value.is_number()) return false;
  if (parsed.value.is_number_float() && !std::isfinite(parsed.value.get<double>())) return false;
  *out = std::move(parsed.value);
  return true;
}

bool PythonLiteralReader::read_based_int(bool negative, RequestJson* out) {
  const char kind = static_cast<char>(peek(1) | 0x20);
  const int base = kind == 'x' ? 16 : kind == 'o' ? 8 : 2;
  pos_ += 2;
  if (peek() == '_') ++pos_;  // 0x_ff
  const std::string digits = read_digits(base);
  if (digits.empty() || !ends_token(peek())) return false;
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (error != std::errc() || end != digits.data() + digits.size()) return false;
  if (!negative) {
    *out = value;
    return true;
  }
  constexpr uint64_t kMinMagnitude = uint64_t{1} << 63;
  if (value > kMinMagnitude) return false;
  *out = value == kMinMagnitude ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(value);
  return true;
}

bool PythonLiteralReader::read_word(RequestJson* out) {
  size_t end = pos_;
  while (end < text_.size() && !ends_token(text_[end])) ++end;
  const std::string_view word = text_.substr(pos_, end - pos_);
  if (word == "True" || word == "true") {
    *out = true;
  } else if (word == "False" || word == "false") {
    *out = false;
  } else if (word == "None" || word == "null") {
    *out = nullptr;
  } else {
    return false;  // a name, a call's start, or nothing Python reads as a literal
  }
  pos_ = end;
  return true;
}

bool PythonLiteralReader::read_items(char close, RequestJson* out, int depth) {
  *out = RequestJson::array();
  if (take(close)) return true;
  for (;;) {
    RequestJson item;
    if (!read_value_at(&item, depth + 1)) return false;
    out->push_back(std::move(item));
    if (take(close)) return true;
    if (!take(',')) return false;
    if (take(close)) return true;
  }
}

bool PythonLiteralReader::read_parenthesized(RequestJson* out, int depth) {
  ++pos_;  // '('
  if (take(')')) {
    *out = RequestJson::array();
    return true;
  }
  RequestJson first;
  if (!read_value_at(&first, depth + 1)) return false;
  if (take(')')) {  // (x) is x itself, not a tuple
    *out = std::move(first);
    return true;
  }
  RequestJson rest;
  if (!take(',') || !read_items(')', &rest, depth)) return false;
  *out = RequestJson::array();
  out->push_back(std::move(first));
  for (RequestJson& item : rest) out->push_back(std::move(item));
  return true;
}

bool PythonLiteralReader::read_dict(RequestJson* out, int depth) {
  ++pos_;  // '{'
  *out = RequestJson::object();
  if (take('}')) return true;
  for (;;) {
    RequestJson key;
    std::string key_text;
    if (out->size() >= kMaxObjectKeys || !read_value_at(&key, depth + 1) || !python_key_text(key, &key_text)) {
      return false;
    }
    RequestJson value;
    if (!take(':') || !read_value_at(&value, depth + 1)) return false;
    (*out)[key_text] = std::move(value);
    if (take('}')) return true;
    if (!take(',')) return false;
    if (take('}')) return true;
  }
}

}  // namespace strata::server
