#include "chat/jinja_pystr.h"
#include "base/utf8_encode.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace strata::jinja {

std::string python_float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  if (d == 0.0) return std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);  // "-1.2345e-05": shortest round-trip digits
  std::string out;
  if (sci.front() == '-') {
    out.push_back('-');
    sci.remove_prefix(1);
  }
  size_t e_pos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_pos)) {
    if (c != '.') digits.push_back(c);
  }
  int exp10 = 0;
  std::string_view exp_text = sci.substr(e_pos + 1);
  if (exp_text.front() == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp10);
  // Python's decpt: the value is 0.DIGITS * 10^decpt; repr switches to exponent notation
  // outside -4 < decpt <= 16.
  int decpt = exp10 + 1;
  int n_digits = static_cast<int>(digits.size());
  if (decpt <= -4 || decpt > 16) {
    out += digits.substr(0, 1);
    if (n_digits > 1) out += "." + digits.substr(1);
    char exp_buf[16];
    std::snprintf(exp_buf, sizeof(exp_buf), "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    out += exp_buf;
  } else if (decpt <= 0) {
    out += "0." + std::string(-decpt, '0') + digits;
  } else if (decpt >= n_digits) {
    out += digits + std::string(decpt - n_digits, '0') + ".0";
  } else {
    out += digits.substr(0, decpt) + "." + digits.substr(decpt);
  }
  return out;
}

std::string python_string_repr(std::string_view s) {
  bool has_single = s.find('\'') != std::string_view::npos;
  bool has_double = s.find('"') != std::string_view::npos;
  char quote = (has_single && !has_double) ? '"' : '\'';
  std::string out(1, quote);
  for (unsigned char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c == static_cast<unsigned char>(quote)) {
          out.push_back('\\');
          out.push_back(static_cast<char>(c));
        } else if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back(quote);
  return out;
}

uint32_t utf8_next(std::string_view s, size_t* pos) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  uint32_t lead = byte(*pos);
  size_t n_extra = lead >= 0xF0 && lead < 0xF5 ? 3 : lead >= 0xE0 && lead < 0xF0 ? 2 : lead >= 0xC2 && lead < 0xE0 ? 1 : 0;
  if (n_extra > 0 && *pos + n_extra < s.size()) {
    uint32_t cp = lead & (0x3F >> n_extra);
    bool valid = true;
    for (size_t i = 1; i <= n_extra && valid; ++i) {
      uint32_t c = byte(*pos + i);
      valid = (c & 0xC0) == 0x80;
      cp = (cp << 6) | (c & 0x3F);
    }
    if (valid) {
      *pos += n_extra + 1;
      return cp;
    }
  }
  *pos += 1;  // an invalid or truncated sequence: one byte stands for itself
  return lead;
}

void utf8_append(uint32_t cp, std::string* out) {
  append_utf8(cp, out);
}

std::vector<size_t> utf8_boundaries(std::string_view s) {
  std::vector<size_t> out;
  size_t pos = 0;
  while (pos < s.size()) {
    out.push_back(pos);
    utf8_next(s, &pos);
  }
  out.push_back(s.size());
  return out;
}

size_t utf8_length(std::string_view s) {
  size_t n = 0;
  for (size_t pos = 0; pos < s.size(); ++n) utf8_next(s, &pos);
  return n;
}

bool is_python_space(uint32_t cp) {
  if (cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F)) return true;
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

std::string python_strip(std::string_view s, const std::optional<std::string>& chars, bool left, bool right) {
  std::vector<uint32_t> strip_set;
  if (chars) {
    for (size_t pos = 0; pos < chars->size();) strip_set.push_back(utf8_next(*chars, &pos));
  }
  auto strippable = [&](uint32_t cp) {
    if (!chars) return is_python_space(cp);
    for (uint32_t c : strip_set) {
      if (c == cp) return true;
    }
    return false;
  };
  std::vector<size_t> bounds = utf8_boundaries(s);
  size_t first = 0, last = bounds.size() - 1;  // code point range [first, last)
  while (left && first < last) {
    size_t pos = bounds[first];
    if (!strippable(utf8_next(s, &pos))) break;
    ++first;
  }
  while (right && last > first) {
    size_t pos = bounds[last - 1];
    if (!strippable(utf8_next(s, &pos))) break;
    --last;
  }
  return std::string(s.substr(bounds[first], bounds[last] - bounds[first]));
}

namespace {

std::vector<std::string> split_whitespace(std::string_view s, int64_t maxsplit) {
  std::vector<std::string> out;
  size_t pos = 0;
  auto skip_space = [&] {
    while (pos < s.size()) {
      size_t next = pos;
      if (!is_python_space(utf8_next(s, &next))) break;
      pos = next;
    }
  };
  skip_space();
  while (pos < s.size()) {
    if (maxsplit >= 0 && static_cast<int64_t>(out.size()) == maxsplit) {
      out.emplace_back(s.substr(pos));
      return out;
    }
    size_t start = pos;
    while (pos < s.size()) {
      size_t next = pos;
      if (is_python_space(utf8_next(s, &next))) break;
      pos = next;
    }
    out.emplace_back(s.substr(start, pos - start));
    skip_space();
  }
  return out;
}

}  // namespace

std::vector<std::string> python_split(std::string_view s, const std::optional<std::string>& sep, int64_t maxsplit) {
  if (!sep) return split_whitespace(s, maxsplit);
  std::vector<std::string> out;
  size_t start = 0;
  while (maxsplit < 0 || static_cast<int64_t>(out.size()) < maxsplit) {
    size_t hit = s.find(*sep, start);
    if (hit == std::string_view::npos) break;
    out.emplace_back(s.substr(start, hit - start));
    start = hit + sep->size();
  }
  out.emplace_back(s.substr(start));
  return out;
}

std::string python_replace(std::string_view s, std::string_view from, std::string_view to, int64_t count) {
  std::string out;
  if (from.empty()) {
    // Python inserts `to` before every code point and at the end.
    std::vector<size_t> bounds = utf8_boundaries(s);
    for (size_t i = 0; i < bounds.size(); ++i) {
      if (count < 0 || static_cast<int64_t>(i) < count) out += to;
      if (i + 1 < bounds.size()) out += s.substr(bounds[i], bounds[i + 1] - bounds[i]);
    }
    return out;
  }
  size_t start = 0;
  for (int64_t n = 0; count < 0 || n < count; ++n) {
    size_t hit = s.find(from, start);
    if (hit == std::string_view::npos) break;
    out += s.substr(start, hit - start);
    out += to;
    start = hit + from.size();
  }
  out += s.substr(start);
  return out;
}

namespace {

bool is_ascii_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_ascii_lower(char c) { return c >= 'a' && c <= 'z'; }
char to_upper(char c) { return is_ascii_lower(c) ? static_cast<char>(c - 'a' + 'A') : c; }
char to_lower(char c) { return is_ascii_upper(c) ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

std::string ascii_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = to_upper(c);
  return out;
}

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = to_lower(c);
  return out;
}

std::string python_capitalize(std::string_view s) {
  std::string out = ascii_lower(s);
  if (!out.empty()) out[0] = to_upper(out[0]);
  return out;
}

std::string python_title(std::string_view s) {
  std::string out(s);
  bool previous_cased = false;
  for (char& c : out) {
    bool cased = is_ascii_upper(c) || is_ascii_lower(c);
    if (cased) c = previous_cased ? to_lower(c) : to_upper(c);
    previous_cased = cased;
  }
  return out;
}

}  // namespace strata::jinja
