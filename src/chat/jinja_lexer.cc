#include "chat/jinja_lexer.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "chat/jinja_pystr.h"

namespace strata::jinja {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

class Lexer {
 public:
  Lexer(std::string_view src, const LexOptions& options) : src_(src), options_(options) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < src.size(); ++i) {
      if (src[i] == '\n') line_starts_.push_back(i + 1);
    }
  }

  Result<std::vector<Token>> run();

 private:
  Token make(TokenKind kind, size_t offset, std::string text = {}) const;
  Status error_at(size_t offset, const std::string& message) const;
  size_t find_tag_start(size_t from) const;
  std::string strip_before_tag(std::string text, size_t text_offset, char type, char sign) const;
  size_t skip_after_tag(size_t pos, char sign, bool block_like) const;
  Result<size_t> lex_comment(size_t tag, size_t body);
  Result<size_t> lex_tag(char type, size_t tag, size_t body);
  size_t match_end(char type, size_t pos, char* sign) const;
  Result<size_t> try_raw(size_t body);
  Result<size_t> lex_string(size_t pos);
  Result<size_t> lex_number(size_t pos, bool after_dot);

  std::string_view src_;
  LexOptions options_;
  std::vector<size_t> line_starts_;
  std::vector<Token> tokens_;
};

Token Lexer::make(TokenKind kind, size_t offset, std::string text) const {
  Token t;
  t.kind = kind;
  t.text = std::move(text);
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t line_index = static_cast<size_t>(it - line_starts_.begin()) - 1;
  t.line = static_cast<int>(line_index) + 1;
  t.column = static_cast<int>(offset - line_starts_[line_index]) + 1;
  return t;
}

Status Lexer::error_at(size_t offset, const std::string& message) const {
  Token at = make(TokenKind::kEnd, offset);
  return Status::InvalidArgument("template line " + std::to_string(at.line) + ", column " +
                                 std::to_string(at.column) + ": " + message);
}

size_t Lexer::find_tag_start(size_t from) const {
  for (size_t i = src_.find('{', from); i != std::string_view::npos; i = src_.find('{', i + 1)) {
    if (i + 1 < src_.size() && (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#')) return i;
  }
  return std::string_view::npos;
}

// `{%-` strips all whitespace before the tag; lstrip_blocks strips the spaces and tabs
// between the start of the line and a block or comment tag, as Jinja2 does.
std::string Lexer::strip_before_tag(std::string text, size_t text_offset, char type, char sign) const {
  if (sign == '-') {
    size_t keep = text.size();
    while (keep > 0 && is_space(text[keep - 1])) --keep;
    text.resize(keep);
    return text;
  }
  if (!options_.lstrip_blocks || type == '{' || sign == '+') return text;
  size_t line_begin = text.rfind('\n');
  line_begin = line_begin == std::string::npos ? 0 : line_begin + 1;
  bool line_starting = text_offset == 0 || src_[text_offset - 1] == '\n';
  if (line_begin == 0 && !line_starting) return text;
  if (line_begin == text.size()) return text;
  for (size_t i = line_begin; i < text.size(); ++i) {
    if (!is_space(text[i])) return text;
  }
  text.resize(line_begin);
  return text;
}

size_t Lexer::skip_after_tag(size_t pos, char sign, bool block_like) const {
  if (sign == '-') {
    while (pos < src_.size() && is_space(src_[pos])) ++pos;
  } else if (block_like && options_.trim_blocks && sign != '+' && pos < src_.size() && src_[pos] == '\n') {
    ++pos;
  }
  return pos;
}

Result<std::vector<Token>> Lexer::run() {
  size_t pos = 0;
  while (pos < src_.size()) {
    size_t tag = find_tag_start(pos);
    std::string text(src_.substr(pos, tag == std::string_view::npos ? std::string_view::npos : tag - pos));
    if (tag == std::string_view::npos) {
      if (!text.empty()) tokens_.push_back(make(TokenKind::kText, pos, std::move(text)));
      break;
    }
    char type = src_[tag + 1];
    char sign = tag + 2 < src_.size() && (src_[tag + 2] == '-' || src_[tag + 2] == '+') ? src_[tag + 2] : 0;
    text = strip_before_tag(std::move(text), pos, type, sign);
    if (!text.empty()) tokens_.push_back(make(TokenKind::kText, pos, std::move(text)));
    size_t body = tag + 2 + (sign != 0 ? 1 : 0);
    Result<size_t> next = type == '#' ? lex_comment(tag, body) : lex_tag(type, tag, body);
    if (!next.ok()) return next.status();
    pos = *next;
  }
  tokens_.push_back(make(TokenKind::kEnd, src_.size()));
  return std::move(tokens_);
}

Result<size_t> Lexer::lex_comment(size_t tag, size_t body) {
  size_t end = src_.find("#}", body);
  if (end == std::string_view::npos) return error_at(tag, "unclosed comment '{#'");
  char sign = end > body && (src_[end - 1] == '-' || src_[end - 1] == '+') ? src_[end - 1] : 0;
  return skip_after_tag(end + 2, sign, true);
}

size_t Lexer::match_end(char type, size_t pos, char* sign) const {
  std::string_view rest = src_.substr(pos);
  std::string_view close = type == '{' ? "}}" : "%}";
  *sign = 0;
  if (rest.substr(0, 2) == close) return 2;
  if (rest.size() >= 3 && rest.substr(1, 2) == close && (rest[0] == '-' || (rest[0] == '+' && type == '%'))) {
    *sign = rest[0];
    return 3;
  }
  return 0;
}

Result<size_t> Lexer::lex_tag(char type, size_t tag, size_t body) {
  bool is_block = type == '%';
  if (is_block) {
    Result<size_t> raw_end = try_raw(body);
    if (!raw_end.ok() || *raw_end != 0) return raw_end;
  }
  tokens_.push_back(make(is_block ? TokenKind::kBlockBegin : TokenKind::kVarBegin, tag));
  std::vector<char> brackets;
  size_t pos = body;
  while (true) {
    while (pos < src_.size() && is_space(src_[pos])) ++pos;
    if (pos >= src_.size()) return error_at(tag, is_block ? "unclosed tag '{%'" : "unclosed tag '{{'");
    char sign = 0;
    size_t end_len = brackets.empty() ? match_end(type, pos, &sign) : 0;
    if (end_len > 0) {
      tokens_.push_back(make(is_block ? TokenKind::kBlockEnd : TokenKind::kVarEnd, pos));
      return skip_after_tag(pos + end_len, sign, is_block);
    }
    char c = src_[pos];
    if (is_ident_start(c)) {
      size_t start = pos;
      while (pos < src_.size() && is_ident_char(src_[pos])) ++pos;
      tokens_.push_back(make(TokenKind::kName, start, std::string(src_.substr(start, pos - start))));
      continue;
    }
    if (is_digit(c)) {
      bool after_dot = !tokens_.empty() && tokens_.back().kind == TokenKind::kOp && tokens_.back().text == ".";
      STRATA_ASSIGN_OR_RETURN(pos, lex_number(pos, after_dot));
      continue;
    }
    if (c == '\'' || c == '"') {
      STRATA_ASSIGN_OR_RETURN(pos, lex_string(pos));
      continue;
    }
    static constexpr std::string_view kTwoChar[] = {"//", "**", "==", "!=", "<=", ">="};
    std::string op;
    for (std::string_view two : kTwoChar) {
      if (src_.substr(pos, 2) == two) op = two;
    }
    if (op.empty() && std::string_view("+-*/%~|.,:()[]{}=<>").find(c) != std::string_view::npos) op = c;
    if (op.empty()) return error_at(pos, std::string("unexpected character '") + c + "' in tag");
    if (op == "(" || op == "[" || op == "{") {
      brackets.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
    } else if (op == ")" || op == "]" || op == "}") {
      if (brackets.empty() || brackets.back() != c) return error_at(pos, "unexpected '" + op + "'");
      brackets.pop_back();
    }
    tokens_.push_back(make(TokenKind::kOp, pos, op));
    pos += op.size();
  }
}

// `{% raw %}...{% endraw %}` passes its content through untouched. Returns the offset after
// the endraw tag, or 0 when the tag is not `raw`.
Result<size_t> Lexer::try_raw(size_t body) {
  size_t pos = body;
  while (pos < src_.size() && is_space(src_[pos])) ++pos;
  if (src_.substr(pos, 3) != "raw" || (pos + 3 < src_.size() && is_ident_char(src_[pos + 3]))) return size_t{0};
  pos += 3;
  while (pos < src_.size() && is_space(src_[pos])) ++pos;
  char sign = 0;
  size_t end_len = match_end('%', pos, &sign);
  if (end_len == 0) return size_t{0};
  // Jinja2 does not apply trim_blocks to the raw opening tag; only `-%}` strips after it.
  size_t content = skip_after_tag(pos + end_len, sign, false);
  for (size_t tag = src_.find("{%", content); tag != std::string_view::npos; tag = src_.find("{%", tag + 2)) {
    size_t p = tag + 2;
    char open_sign = p < src_.size() && (src_[p] == '-' || src_[p] == '+') ? src_[p++] : 0;
    while (p < src_.size() && is_space(src_[p])) ++p;
    if (src_.substr(p, 6) != "endraw") continue;
    p += 6;
    while (p < src_.size() && is_space(src_[p])) ++p;
    char close_sign = 0;
    size_t close_len = match_end('%', p, &close_sign);
    if (close_len == 0) continue;
    std::string text(src_.substr(content, tag - content));
    text = strip_before_tag(std::move(text), content, '%', open_sign);
    if (!text.empty()) tokens_.push_back(make(TokenKind::kText, content, std::move(text)));
    return skip_after_tag(p + close_len, close_sign, true);
  }
  return error_at(body, "'raw' block has no matching 'endraw'");
}

Result<size_t> Lexer::lex_string(size_t start) {
  char quote = src_[start];
  std::string value;
  size_t pos = start + 1;
  while (pos < src_.size() && src_[pos] != quote) {
    char c = src_[pos++];
    if (c != '\\') {
      value.push_back(c);
      continue;
    }
    if (pos >= src_.size()) break;
    char e = src_[pos++];
    switch (e) {
      case 'n': value.push_back('\n'); break;
      case 't': value.push_back('\t'); break;
      case 'r': value.push_back('\r'); break;
      case '0': value.push_back('\0'); break;
      case 'a': value.push_back('\a'); break;
      case 'b': value.push_back('\b'); break;
      case 'f': value.push_back('\f'); break;
      case 'v': value.push_back('\v'); break;
      case '\\': case '\'': case '"': value.push_back(e); break;
      case '\n': break;  // a backslash-newline continues the literal
      case 'x': case 'u': case 'U': {
        size_t n_hex = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        uint32_t cp = 0;
        auto res = std::from_chars(src_.data() + pos, src_.data() + std::min(src_.size(), pos + n_hex), cp, 16);
        if (res.ec != std::errc() || static_cast<size_t>(res.ptr - (src_.data() + pos)) != n_hex || cp > 0x10FFFF) {
          return error_at(pos - 2, std::string("bad \\") + e + " escape in string literal");
        }
        utf8_append(cp, &value);
        pos += n_hex;
        break;
      }
      default:  // Python keeps unknown escapes verbatim
        value.push_back('\\');
        value.push_back(e);
    }
  }
  if (pos >= src_.size()) return error_at(start, "unterminated string literal");
  tokens_.push_back(make(TokenKind::kString, start, std::move(value)));
  return pos + 1;
}

Result<size_t> Lexer::lex_number(size_t start, bool after_dot) {
  size_t pos = start;
  auto digits = [&] {
    while (pos < src_.size() && (is_digit(src_[pos]) || (src_[pos] == '_' && pos + 1 < src_.size() && is_digit(src_[pos + 1])))) ++pos;
  };
  digits();
  bool is_float = false;
  if (!after_dot && pos + 1 < src_.size() && src_[pos] == '.' && is_digit(src_[pos + 1])) {
    is_float = true;
    ++pos;
    digits();
  }
  if (!after_dot && pos < src_.size() && (src_[pos] == 'e' || src_[pos] == 'E')) {
    size_t p = pos + 1;
    if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) ++p;
    if (p < src_.size() && is_digit(src_[p])) {
      is_float = true;
      pos = p;
      digits();
    }
  }
  std::string text;
  for (size_t i = start; i < pos; ++i) {
    if (src_[i] != '_') text.push_back(src_[i]);
  }
  Token t = make(is_float ? TokenKind::kFloat : TokenKind::kInt, start, text);
  if (is_float) {
    t.float_value = std::strtod(text.c_str(), nullptr);
  } else {
    auto res = std::from_chars(text.data(), text.data() + text.size(), t.int_value);
    if (res.ec != std::errc()) return error_at(start, "integer literal " + text + " is too large");
  }
  tokens_.push_back(std::move(t));
  return pos;
}

}  // namespace

Result<std::vector<Token>> lex(std::string_view source, const LexOptions& options) {
  return Lexer(source, options).run();
}

}  // namespace strata::jinja
