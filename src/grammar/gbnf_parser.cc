#include "grammar/gbnf_parser.h"

#include <fmt/format.h>

#include "grammar/grammar_builder.h"

namespace strata::grammar {

namespace {

constexpr int kMaxRepeat = 10000;
constexpr int kMaxGroupDepth = 64;

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

class GbnfParser {
 public:
  explicit GbnfParser(std::string_view text) : text_(text) {}

  Result<Grammar> parse() {
    skip_space(/*newlines=*/true);
    while (!at_end()) {
      const size_t name_at = pos_;
      std::string name = read_name();
      if (name.empty()) return error("expected a rule name");
      skip_space(false);
      if (!consume("::=")) return error(fmt::format("expected '::=' after rule name '{}'", name));
      std::vector<Alternative> alternatives;
      STRATA_RETURN_IF_ERROR(parse_alternatives(/*nested=*/false, 0, &alternatives));
      Status defined = builder_.define(builder_.rule_id(name), std::move(alternatives));
      if (!defined.ok()) return error_at(name_at, std::string(defined.message()));
      skip_space(true);
    }
    Result<Grammar> grammar = builder_.finish();
    if (!grammar.ok()) return Status::InvalidArgument(std::string(grammar.status().message()));
    return grammar;
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  bool consume(std::string_view s) {
    if (text_.substr(pos_, s.size()) != s) return false;
    pos_ += s.size();
    return true;
  }

  Status error_at(size_t at, const std::string& what) const {
    int line = 1, column = 1;
    for (size_t i = 0; i < at && i < text_.size(); ++i) {
      column = text_[i] == '\n' ? 1 : column + 1;
      line += text_[i] == '\n';
    }
    return Status::InvalidArgument(fmt::format("grammar: line {} column {}: {}", line, column, what));
  }
  Status error(const std::string& what) const { return error_at(pos_, what); }

  void skip_space(bool newlines) {
    while (!at_end()) {
      const char c = peek();
      if (c == '#') {
        while (!at_end() && peek() != '\n') ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || (newlines && c == '\n')) {
        ++pos_;
      } else {
        return;
      }
    }
  }

  std::string read_name() {
    const size_t start = pos_;
    while (!at_end() && is_name_char(peek())) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  // After a newline at the top level: does the rule go on (a continuation line or '|')?
  bool rule_continues() {
    const size_t save = pos_;
    skip_space(true);
    if (at_end()) return false;
    const size_t probe = pos_;
    std::string name = read_name();
    skip_space(false);
    const bool new_rule = !name.empty() && consume("::=");
    pos_ = new_rule ? save : probe;
    return !new_rule;
  }

  Status parse_alternatives(bool nested, int depth, std::vector<Alternative>* out) {
    if (depth > kMaxGroupDepth) return error("groups nested too deeply");
    for (;;) {
      Alternative seq;
      STRATA_RETURN_IF_ERROR(parse_sequence(nested, depth, &seq));
      out->push_back(std::move(seq));
      if (peek() != '|') return Status::Ok();
      ++pos_;
      skip_space(true);
    }
  }

  Status parse_sequence(bool nested, int depth, Alternative* out) {
    for (;;) {
      skip_space(nested);
      if (!nested && peek() == '\n') {
        if (!rule_continues()) return Status::Ok();
        continue;
      }
      const char c = peek();
      if (at_end() || c == '|' || c == ')') {
        if (c == ')' && !nested) return error("unmatched ')'");
        return Status::Ok();
      }
      Alternative item;
      STRATA_RETURN_IF_ERROR(parse_item(depth, &item));
      STRATA_RETURN_IF_ERROR(parse_postfix(&item));
      out->insert(out->end(), item.begin(), item.end());
    }
  }

  Status parse_item(int depth, Alternative* out) {
    const char c = peek();
    if (c == '"') return parse_literal(out);
    if (c == '[') return parse_class(out);
    if (c == '.') {
      ++pos_;
      out->push_back(builder_.codepoint_class({}, /*negated=*/true));
      return Status::Ok();
    }
    if (c == '(') {
      ++pos_;
      std::vector<Alternative> alternatives;
      STRATA_RETURN_IF_ERROR(parse_alternatives(true, depth + 1, &alternatives));
      if (!consume(")")) return error("expected ')'");
      out->push_back(GrammarBuilder::ref(builder_.helper("group", std::move(alternatives))));
      return Status::Ok();
    }
    if (is_name_char(c)) {
      out->push_back(GrammarBuilder::ref(builder_.rule_id(read_name())));
      return Status::Ok();
    }
    return error(fmt::format("unexpected character '{}'", c));
  }

  // One character inside a literal or class: an escape or a UTF-8 sequence.
  Result<uint32_t> read_char() {
    if (at_end()) return error("unexpected end of grammar");
    unsigned char c = static_cast<unsigned char>(text_[pos_++]);
    if (c == '\\') {
      if (at_end()) return error("unfinished escape");
      const char e = text_[pos_++];
      switch (e) {
        case 'n': return uint32_t{'\n'};
        case 'r': return uint32_t{'\r'};
        case 't': return uint32_t{'\t'};
        case 'x': return read_hex(2);
        case 'u': return read_hex(4);
        case 'U': return read_hex(8);
        case '\\': case '"': case '\'': case '[': case ']': case '-': case '^': return uint32_t(e);
        default: return error(fmt::format("unknown escape '\\{}'", e));
      }
    }
    if (c < 0x80) return uint32_t{c};
    const int n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
    if (n < 0 || pos_ + n > text_.size()) return error("invalid UTF-8 in grammar");
    uint32_t cp = c & (0x3F >> n);
    for (int i = 0; i < n; ++i) cp = (cp << 6) | (static_cast<unsigned char>(text_[pos_++]) & 0x3F);
    return cp;
  }

  Result<uint32_t> read_hex(int n) {
    uint32_t v = 0;
    for (int i = 0; i < n; ++i) {
      const char h = peek();
      int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
      if (d < 0) return error("expected a hex digit");
      v = v * 16 + d;
      ++pos_;
    }
    if (v > 0x10FFFF) return error("code point out of range");
    return v;
  }

  Status parse_literal(Alternative* out) {
    ++pos_;
    while (peek() != '"') {
      if (at_end() || peek() == '\n') return error("unterminated string literal");
      STRATA_ASSIGN_OR_RETURN(uint32_t cp, read_char());
      out->push_back(builder_.codepoint_class({{cp, cp}}, false));
    }
    ++pos_;
    return Status::Ok();
  }

  Status parse_class(Alternative* out) {
    ++pos_;
    const bool negated = peek() == '^';
    if (negated) ++pos_;
    std::vector<CodepointRange> ranges;
    while (peek() != ']') {
      if (at_end()) return error("unterminated character class");
      STRATA_ASSIGN_OR_RETURN(uint32_t lo, read_char());
      uint32_t hi = lo;
      if (peek() == '-' && peek(1) != ']') {
        ++pos_;
        STRATA_ASSIGN_OR_RETURN(hi, read_char());
        if (hi < lo) return error("character range is reversed");
      }
      ranges.emplace_back(lo, hi);
    }
    ++pos_;
    out->push_back(builder_.codepoint_class(std::move(ranges), negated));
    return Status::Ok();
  }

  Result<int> read_count() {
    const size_t start = pos_;
    int v = 0;
    while (peek() >= '0' && peek() <= '9') {
      v = v * 10 + (peek() - '0');
      if (v > kMaxRepeat) return error(fmt::format("repetition count over {}", kMaxRepeat));
      ++pos_;
    }
    if (pos_ == start) return error("expected a repetition count");
    return v;
  }

  Status parse_postfix(Alternative* item) {
    const char c = peek();
    int min = 0, max = -1;
    if (c == '*' || c == '+' || c == '?') {
      ++pos_;
      min = c == '+' ? 1 : 0;
      max = c == '?' ? 1 : -1;
    } else if (c == '{') {
      ++pos_;
      skip_space(false);
      STRATA_ASSIGN_OR_RETURN(min, read_count());
      skip_space(false);
      max = min;
      if (consume(",")) {
        skip_space(false);
        max = -1;
        if (peek() != '}') {
          STRATA_ASSIGN_OR_RETURN(max, read_count());
        }
        skip_space(false);
      }
      if (!consume("}")) return error("expected '}'");
      if (max >= 0 && max < min) return error("repetition {m,n} with n < m");
    } else {
      return Status::Ok();
    }
    Element one = item->size() == 1 ? (*item)[0] : GrammarBuilder::ref(builder_.helper("seq", {*item}));
    *item = {builder_.repeat(one, min, max)};
    return Status::Ok();
  }

  std::string_view text_;
  size_t pos_ = 0;
  GrammarBuilder builder_;
};

}  // namespace

Result<Grammar> parse_gbnf(std::string_view text) { return GbnfParser(text).parse(); }

}  // namespace strata::grammar
