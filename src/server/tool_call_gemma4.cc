#include "server/tool_call_gemma4.h"

#include <string>
#include <utility>

#include "server/request_json.h"
#include "server/tool_call_text.h"

namespace strata::server {

namespace {

constexpr std::string_view kQuote = "<|\"|>";
constexpr std::string_view kCallPrefix = "call:";
constexpr int kMaxDepth = 64;

// A recursive-descent reader of format_argument's notation over text, from pos.
class Gemma4ArgumentReader {
 public:
  explicit Gemma4ArgumentReader(std::string_view text) : text_(text) {}

  bool read_value(RequestJson* out, int depth) {
    if (depth > kMaxDepth) return false;
    skip_space();
    if (at_end()) return false;
    if (text_.substr(pos_).starts_with(kQuote)) return read_string(out);
    if (text_[pos_] == '{') return read_object(out, depth);
    if (text_[pos_] == '[') return read_list(out, depth);
    return read_literal(out);
  }
  bool read_object(RequestJson* out, int depth) {
    *out = RequestJson::object();
    ++pos_;  // '{'
    skip_space();
    if (take('}')) return true;
    for (size_t n_keys = 0;; ++n_keys) {
      if (n_keys >= kMaxObjectKeys) return false;
      std::string key;
      if (!read_key(&key)) return false;
      RequestJson value;
      if (!take(':') || !read_value(&value, depth + 1)) return false;
      (*out)[key] = std::move(value);
      skip_space();
      if (take('}')) return true;
      if (!take(',')) return false;
    }
  }
  void skip_space() {
    while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r')) ++pos_;
  }
  bool at_end() const { return pos_ >= text_.size(); }
  size_t pos() const { return pos_; }

 private:
  bool take(char c) {
    skip_space();
    if (at_end() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  bool read_string(RequestJson* out) {
    pos_ += kQuote.size();
    const size_t end = text_.find(kQuote, pos_);
    if (end == std::string_view::npos) return false;
    *out = std::string(text_.substr(pos_, end - pos_));
    pos_ = end + kQuote.size();
    return true;
  }
  bool read_key(std::string* key) {
    skip_space();
    if (text_.substr(pos_).starts_with(kQuote)) {
      RequestJson quoted;
      if (!read_string(&quoted)) return false;
      *key = quoted.get<std::string>();
      return true;
    }
    const size_t end = text_.find(':', pos_);
    if (end == std::string_view::npos || end == pos_) return false;
    *key = std::string(trim_markup_space(text_.substr(pos_, end - pos_)));
    pos_ = end;
    return !key->empty();
  }
  bool read_list(RequestJson* out, int depth) {
    *out = RequestJson::array();
    ++pos_;  // '['
    skip_space();
    if (take(']')) return true;
    for (;;) {
      RequestJson item;
      if (!read_value(&item, depth + 1)) return false;
      out->push_back(std::move(item));
      if (take(']')) return true;
      if (!take(',')) return false;
    }
  }
  // A number, true, false or null as JSON reads it; any other bare text as a string.
  bool read_literal(RequestJson* out) {
    const size_t start = pos_;
    while (!at_end() && text_[pos_] != ',' && text_[pos_] != '}' && text_[pos_] != ']') ++pos_;
    const std::string_view word = trim_markup_space(text_.substr(start, pos_ - start));
    if (word.empty()) return false;
    RequestJson parsed = parse_ordered_json(word).value;
    *out = parsed.is_number() || parsed.is_boolean() || (parsed.is_null() && word == "null") ? std::move(parsed)
                                                                                             : RequestJson(std::string(word));
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

bool valid_name(std::string_view name) {
  return !name.empty() && name.find_first_of(" \t\r\n<>{}[],:\"") == std::string_view::npos;
}

}  // namespace

bool parse_gemma4_call(std::string_view body, ParsedToolCall* out) {
  std::string_view text = trim_markup_space(body);
  if (!text.starts_with(kCallPrefix)) return false;
  text.remove_prefix(kCallPrefix.size());
  const size_t open = text.find('{');
  const std::string_view name = trim_markup_space(text.substr(0, open));
  if (!valid_name(name)) return false;
  RequestJson arguments = RequestJson::object();
  if (open != std::string_view::npos) {
    Gemma4ArgumentReader reader(text.substr(open));
    if (!reader.read_object(&arguments, 0)) return false;
    reader.skip_space();
    if (!reader.at_end()) return false;
  }
  out->name = std::string(name);
  out->arguments_json = arguments.dump(-1, ' ', false, RequestJson::error_handler_t::replace);
  out->arguments_raw = false;
  out->id.clear();
  return true;
}

}  // namespace strata::server
