#include "grammar/schema_pieces.h"

#include <cstdio>

#include <fmt/format.h>

#include "grammar/json_schema.h"

namespace strata::grammar {

namespace {

// Decimal strings of equal length a <= b: the GBNF expression for the numbers between them.
std::string same_length_range(const std::string& a, const std::string& b) {
  if (a == b) return gbnf_literal(a);
  if (a.size() == 1) return fmt::format("[{}-{}]", a[0], b[0]);
  const size_t rest = a.size() - 1;
  if (a[0] == b[0]) return fmt::format("\"{}\" ({})", a[0], same_length_range(a.substr(1), b.substr(1)));
  std::vector<std::string> alternatives;
  const std::string nines(rest, '9'), zeros(rest, '0');
  char first = a[0], last = b[0];
  if (a.substr(1) != zeros) {
    alternatives.push_back(fmt::format("\"{}\" ({})", a[0], same_length_range(a.substr(1), nines)));
    ++first;
  }
  const bool b_partial = b.substr(1) != nines;
  if (b_partial) --last;
  if (first <= last) alternatives.push_back(fmt::format("[{}-{}] [0-9]{{{}}}", first, last, rest));
  if (b_partial) alternatives.push_back(fmt::format("\"{}\" ({})", b[0], same_length_range(zeros, b.substr(1))));
  std::string out;
  for (const std::string& alt : alternatives) out += (out.empty() ? "" : " | ") + alt;
  return out;
}

// Non-negative lo..hi (hi < 0: unbounded above).
std::string nonnegative_range(long long lo, long long hi) {
  const std::string a = std::to_string(lo);
  std::vector<std::string> alternatives;
  if (hi < 0) {
    alternatives.push_back(same_length_range(a, std::string(a.size(), '9')));
    if (static_cast<int>(a.size()) < kMaxNumberDigits) {
      alternatives.push_back(fmt::format("[1-9] [0-9]{{{},{}}}", a.size(), kMaxNumberDigits - 1));
    }
  } else {
    const std::string b = std::to_string(hi);
    if (a.size() == b.size()) return "(" + same_length_range(a, b) + ")";
    alternatives.push_back(same_length_range(a, std::string(a.size(), '9')));
    for (size_t len = a.size() + 1; len < b.size(); ++len) alternatives.push_back(fmt::format("[1-9] [0-9]{{{}}}", len - 1));
    alternatives.push_back(same_length_range("1" + std::string(b.size() - 1, '0'), b));
  }
  return gbnf_alternatives(alternatives);
}

}  // namespace

std::string gbnf_alternatives(const std::vector<std::string>& alternatives) {
  if (alternatives.empty()) return "\"\"";
  std::string out;
  for (const std::string& alt : alternatives) out += (out.empty() ? "(" : " | ") + alt;
  return out + ")";
}

std::string gbnf_literal(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02X}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string integer_range_gbnf(const long long* lo, const long long* hi) {
  const std::string any_positive = fmt::format("[1-9] [0-9]{{0,{}}}", kMaxNumberDigits - 1);
  if (!lo && !hi) return fmt::format("\"-\"? (\"0\" | {})", any_positive);
  std::vector<std::string> alternatives;
  // Negative part: "-" followed by the magnitudes max(1, -hi) .. -lo.
  if (!lo || *lo < 0) {
    const long long mag_lo = hi && *hi < 0 ? -*hi : 1;
    alternatives.push_back("\"-\" " + (lo ? nonnegative_range(mag_lo, -*lo) : nonnegative_range(mag_lo, -1)));
  }
  if (!hi || *hi >= 0) {
    const long long from = lo && *lo > 0 ? *lo : 0;
    alternatives.push_back(nonnegative_range(from, hi ? *hi : -1));
  }
  return gbnf_alternatives(alternatives);
}

std::string primitive_gbnf_rules() {
  return R"(ws ::= ([ \t\n] [ \t]{0,7})?
char ::= [^"\\\x00-\x1F\x7F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})
string ::= "\"" char* "\""
integer ::= "-"? ("0" | [1-9] [0-9]{0,15})
number ::= integer ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,3})?
boolean ::= "true" | "false"
null ::= "null"
value ::= object | array | string | number | boolean | null
object ::= "{" ws (string ws ":" ws value ws ("," ws string ws ":" ws value ws)*)? "}"
array ::= "[" ws (value ws ("," ws value ws)*)? "]"
)";
}

std::string string_length_gbnf(int min, int max) {
  if (max < 0) return fmt::format("char{{{},}}", min);
  return fmt::format("char{{{},{}}}", min, max);
}

namespace {

// A host name's label: a letter or digit, then up to 15 more with hyphens inside.
constexpr const char* kLabel = R"(([a-zA-Z0-9] ([a-zA-Z0-9-]{0,14} [a-zA-Z0-9])?))";

}  // namespace

Result<std::string> string_format_gbnf(std::string_view format) {
  const std::string date =
      R"([0-9]{4} "-" (("0" [13578] | "1" [02]) "-" ("0" [1-9] | [12] [0-9] | "3" [01]) | ("0" [469] | "11") "-" ("0" [1-9] | [12] [0-9] | "30") | "02-" ("0" [1-9] | "1" [0-9] | "2" [0-8])))";
  const std::string time =
      R"(([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ("." [0-9]{1,6})? ("Z" | [+-] ([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9]))";
  // Labels start and end with a letter or digit (RFC 1123); up to four of them.
  const std::string hostname = std::string(kLabel) + " (\".\" " + kLabel + "){0,3}";
  const std::string octet = R"(("25" [0-5] | "2" [0-4] [0-9] | "1" [0-9] [0-9] | [1-9] [0-9] | [0-9]))";
  const std::string ipv4 = octet + " (\".\" " + octet + "){3}";
  std::string body;
  if (format == "date") {
    body = date;
  } else if (format == "time") {
    body = time;
  } else if (format == "date-time") {
    body = "(" + date + ") \"T\" (" + time + ")";
  } else if (format == "uuid") {
    body = R"([0-9a-f]{8} "-" [0-9a-f]{4} "-" [0-9a-f]{4} "-" [0-9a-f]{4} "-" [0-9a-f]{12})";
  } else if (format == "email") {
    // Dot-separated atoms, then dot-separated labels that start and end with a letter or digit.
    const std::string atom = R"([a-zA-Z0-9_+-]{1,16})";
    body = atom + " (\".\" " + atom + "){0,3} \"@\" " + kLabel + " (\".\" " + kLabel + "){0,2} \".\" [a-zA-Z]{2,8}";
  } else if (format == "hostname") {
    body = hostname;
  } else if (format == "ipv4") {
    body = ipv4;
  } else if (format == "uri") {
    // A subset of RFC 3986's absolute URIs (Pydantic's HttpUrl and AnyUrl ask for "uri"):
    // scheme://host[:port] then path segments, a query and a fragment of URI characters, with
    // percent-escapes written as such.
    const std::string pchar = R"(([a-zA-Z0-9._~!$&'()*+,;=:@-] | "%" [0-9A-F] [0-9A-F]))";
    const std::string tail = "(" + pchar + " | [/?]){0,64}";
    body = "[a-z] [a-z0-9+.-]{0,15} \"://\" (" + hostname + " | " + ipv4 + ") (\":\" [0-9]{1,5})? (\"/\" " + pchar +
           "{0,32}){0,8} (\"?\" " + tail + ")? (\"#\" " + tail + ")?";
  } else {
    return Status::InvalidArgument(fmt::format(
        "'format' \"{}\" is not supported (supported: date, date-time, time, uuid, email, hostname, ipv4, uri)",
        format));
  }
  return "\"\\\"\" (" + body + ") \"\\\"\"";
}

namespace {

// Translates a regular expression into a GBNF expression over a JSON string's content.
class PatternTranslator {
 public:
  explicit PatternTranslator(std::string_view p) : p_(p) {}

  Result<std::string> run() {
    if (!p_.empty() && p_.front() == '^') p_.remove_prefix(1);
    if (!p_.empty() && p_.back() == '$' && (p_.size() < 2 || p_[p_.size() - 2] != '\\')) p_.remove_suffix(1);
    STRATA_ASSIGN_OR_RETURN(std::string out, alternation(0));
    if (pos_ != p_.size()) return error("unmatched ')'");
    return out;
  }

 private:
  Status error(const std::string& what) const {
    return Status::InvalidArgument(fmt::format("'pattern' at offset {}: {}", pos_, what));
  }
  bool at_end() const { return pos_ >= p_.size(); }

  Result<std::string> alternation(int depth) {
    if (depth > 32) return error("groups nested too deeply");
    std::string out;
    for (;;) {
      std::string seq;
      while (!at_end() && p_[pos_] != '|' && p_[pos_] != ')') {
        STRATA_ASSIGN_OR_RETURN(std::string atom, this->atom(depth));
        STRATA_ASSIGN_OR_RETURN(std::string quantified, quantifier(atom));
        seq += (seq.empty() ? "" : " ") + quantified;
      }
      out += seq.empty() ? "\"\"" : seq;
      if (at_end() || p_[pos_] != '|') return out;
      ++pos_;
      out += " | ";
    }
  }

  // A literal character as a GBNF literal of its JSON-escaped form.
  static std::string literal_char(char c) {
    if (c == '"') return R"("\\\"")";
    if (c == '\\') return R"("\\\\")";
    return gbnf_literal(std::string(1, c));
  }

  // A class escape's ranges inside [...] (\d, \w, \s), or "" if c is not one.
  static std::string class_escape(char c) {
    if (c == 'd') return "0-9";
    if (c == 'w') return "a-zA-Z0-9_";
    if (c == 's') return " \\t";
    return "";
  }

  Result<std::string> atom(int depth) {
    const char c = p_[pos_++];
    switch (c) {
      case '.': return std::string(R"([^"\\\x00-\x1F\x7F])");
      case '(': {
        if (p_.substr(pos_, 2) == "?:") pos_ += 2;
        else if (!at_end() && p_[pos_] == '?') return error("lookaround and named groups are not supported");
        STRATA_ASSIGN_OR_RETURN(std::string inner, alternation(depth + 1));
        if (at_end() || p_[pos_] != ')') return error("expected ')'");
        ++pos_;
        return "(" + inner + ")";
      }
      case '[': return char_class();
      case '\\': return escape();
      case '*': case '+': case '?': case '{': return error(fmt::format("'{}' has nothing to repeat", c));
      case '^': case '$': return error("anchors are only supported at the pattern's ends");
      default: return literal_char(c);
    }
  }

  Result<std::string> escape() {
    if (at_end()) return error("trailing backslash");
    const char e = p_[pos_++];
    if (std::string ranges = class_escape(e); !ranges.empty()) return "[" + ranges + "]";
    if (e == 'D' || e == 'W' || e == 'S') {
      return "[^\"\\\\\\x00-\\x1F\\x7F" + class_escape(static_cast<char>(e + 32)) + "]";
    }
    if (e == 'n' || e == 't' || e == 'r') return std::string(e == 'n' ? R"("\\n")" : e == 't' ? R"("\\t")" : R"("\\r")");
    if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9')) {
      return error(fmt::format("escape '\\{}' is not supported", e));
    }
    return literal_char(e);
  }

  Result<std::string> char_class() {
    std::string out = "[";
    const bool negated = !at_end() && p_[pos_] == '^';
    if (negated) {
      ++pos_;
      out += "^\"\\\\\\x00-\\x1F\\x7F";  // never the characters JSON must escape
    }
    bool any = false;
    while (!at_end() && (p_[pos_] != ']' || !any)) {
      any = true;
      char c = p_[pos_++];
      if (c == '\\') {
        if (at_end()) return error("trailing backslash");
        c = p_[pos_++];
        if (std::string ranges = class_escape(c); !ranges.empty()) {
          out += ranges;
          continue;
        }
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return error(fmt::format("escape '\\{}' is not supported in a class", c));
      }
      if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
        if (!negated) return error("quotes, backslashes and control characters in classes are not supported");
        continue;
      }
      if (c == ']' || c == '[' || c == '^' || c == '-') out += '\\';
      out += c;
      if (pos_ + 1 < p_.size() && p_[pos_] == '-' && p_[pos_ + 1] != ']') {
        ++pos_;
        char hi = p_[pos_++];
        if (hi == '\\' && !at_end()) hi = p_[pos_++];
        if (hi == '"' || hi == '\\' || hi < c) return error("unsupported or reversed range in a class");
        out += '-';
        if (hi == ']' || hi == '[' || hi == '^' || hi == '-') out += '\\';
        out += hi;
      }
    }
    if (at_end()) return error("unterminated character class");
    ++pos_;
    return out + "]";
  }

  Result<std::string> quantifier(const std::string& atom) {
    if (at_end()) return atom;
    const char c = p_[pos_];
    if (c == '*' || c == '+' || c == '?') {
      ++pos_;
      if (!at_end() && (p_[pos_] == '?' || p_[pos_] == '+')) ++pos_;  // lazy / possessive: same language
      return "(" + atom + ")" + c;
    }
    if (c != '{') return atom;
    const size_t close = p_.find('}', pos_);
    if (close == std::string_view::npos) return error("unterminated '{'");
    const std::string body(p_.substr(pos_ + 1, close - pos_ - 1));
    int m = 0, n = 0;
    char comma = 0;
    const int got = std::sscanf(body.c_str(), "%d%c%d", &m, &comma, &n);
    const bool valid = (got == 1) || (got == 2 && comma == ',') || (got == 3 && comma == ',' && n >= m);
    if (!valid || m < 0 || m > 1000 || n > 1000) return error(fmt::format("bad repetition '{{{}}}'", body));
    pos_ = close + 1;
    return "(" + atom + ")" + "{" + body + "}";
  }

  std::string_view p_;
  size_t pos_ = 0;
};

}  // namespace

Result<std::string> pattern_gbnf(std::string_view pattern) {
  STRATA_ASSIGN_OR_RETURN(std::string body, PatternTranslator(pattern).run());
  return "\"\\\"\" (" + body + ") \"\\\"\"";
}

}  // namespace strata::grammar
