// Filters on single values: text, numbers, tojson, default.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "chat/jinja_filters_impl.h"
#include "chat/jinja_json.h"
#include "chat/jinja_operators.h"
#include "chat/jinja_pystr.h"

namespace strata::jinja {
namespace {

Result<Value> trim(const Value& input, const CallArgs& args, const CallContext&) {
  STRATA_RETURN_IF_ERROR(args.check("trim", 1, {"chars"}));
  STRATA_ASSIGN_OR_RETURN(std::optional<std::string> chars, args.optional_string_at(0, "chars"));
  return Value::String(python_strip(input.to_str(), chars, true, true));
}

Result<Value> upper(const Value& input, const CallArgs&, const CallContext&) {
  return Value::String(ascii_upper(input.to_str()));
}

Result<Value> lower(const Value& input, const CallArgs&, const CallContext&) {
  return Value::String(ascii_lower(input.to_str()));
}

Result<Value> capitalize(const Value& input, const CallArgs&, const CallContext&) {
  return Value::String(python_capitalize(input.to_str()));
}

// Jinja's title filter starts a word after whitespace, '-', or an opening bracket.
Result<Value> title(const Value& input, const CallArgs&, const CallContext&) {
  std::string s = input.to_str();
  bool word_start = true;
  for (char& c : s) {
    bool boundary = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '-' ||
                    c == '(' || c == '{' || c == '[' || c == '<';
    if (boundary) {
      word_start = true;
      continue;
    }
    c = word_start ? ascii_upper(std::string_view(&c, 1))[0] : ascii_lower(std::string_view(&c, 1))[0];
    word_start = false;
  }
  return Value::String(std::move(s));
}

Result<Value> replace(const Value& input, const CallArgs& args, const CallContext& ctx) {
  STRATA_RETURN_IF_ERROR(args.check("replace", 3, {"old", "new", "count"}));
  STRATA_ASSIGN_OR_RETURN(std::string from, args.string_at(0, "old", ""));
  STRATA_ASSIGN_OR_RETURN(std::string to, args.string_at(1, "new", ""));
  STRATA_ASSIGN_OR_RETURN(int64_t count, args.int_at(2, "count", -1));
  return bounded_replace(input.to_str(), from, to, count, ctx);
}

Result<Value> string(const Value& input, const CallArgs&, const CallContext&) { return Value::String(input.to_str()); }

Result<Value> safe(const Value& input, const CallArgs&, const CallContext&) { return input; }

Result<Value> escape(const Value& input, const CallArgs&, const CallContext& ctx) {
  std::string out;
  for (char c : input.to_str()) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  STRATA_RETURN_IF_ERROR(check_size(out.size(), ctx));
  return Value::String(std::move(out));
}

// Parses Python int() text: optional sign, digits with single underscores, surrounding spaces.
bool parse_python_int(const std::string& text, int base, int64_t* out) {
  std::string s = python_strip(text, std::nullopt, true, true);
  std::string digits;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '_' && i > 0 && i + 1 < s.size() && s[i - 1] != '_' && s[i - 1] != '-' && s[i - 1] != '+') continue;
    digits.push_back(s[i]);
  }
  const char* begin = digits.data();
  const char* end = begin + digits.size();
  if (begin != end && *begin == '+') ++begin;
  if (begin == end) return false;
  auto res = std::from_chars(begin, end, *out, base);
  return res.ec == std::errc() && res.ptr == end;
}

bool parse_python_float(const std::string& text, double* out) {
  std::string s = python_strip(text, std::nullopt, true, true);
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

Result<Value> to_int(const Value& input, const CallArgs& args, const CallContext&) {
  STRATA_RETURN_IF_ERROR(args.check("int", 2, {"default", "base"}));
  STRATA_ASSIGN_OR_RETURN(int64_t fallback, args.int_at(0, "default", 0));
  STRATA_ASSIGN_OR_RETURN(int64_t base, args.int_at(1, "base", 10));
  if (base < 2 || base > 36) return Status::InvalidArgument("base must be between 2 and 36");
  if (input.is_int() || input.is_bool()) return Value::Int(input.as_int());
  double d = 0;
  if (input.is_float()) {
    d = input.as_double();
  } else if (input.is_string()) {
    int64_t n = 0;
    if (parse_python_int(input.as_string(), static_cast<int>(base), &n)) return Value::Int(n);
    if (!parse_python_float(input.as_string(), &d)) return Value::Int(fallback);
  } else {
    return Value::Int(fallback);
  }
  if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) return Value::Int(fallback);
  return Value::Int(static_cast<int64_t>(d));  // int() truncates toward zero
}

Result<Value> to_float(const Value& input, const CallArgs& args, const CallContext&) {
  STRATA_RETURN_IF_ERROR(args.check("float", 1, {"default"}));
  const Value* fallback = args.get(0, "default");
  double fallback_value = fallback != nullptr && fallback->is_number() ? fallback->as_double() : 0.0;
  if (input.is_number()) return Value::Float(input.as_double());
  double d = 0;
  if (input.is_string() && parse_python_float(input.as_string(), &d)) return Value::Float(d);
  return Value::Float(fallback_value);
}

Result<Value> abs_value(const Value& input, const CallArgs&, const CallContext&) {
  if (input.is_float()) return Value::Float(std::fabs(input.as_double()));
  if (!input.is_number()) return Status::InvalidArgument(std::string("bad operand type for abs(): '") + input.type_name() + "'");
  if (input.as_int() == std::numeric_limits<int64_t>::min()) return Status::OutOfRange("integer overflow in abs");
  return Value::Int(std::llabs(input.as_int()));
}

Result<Value> round_value(const Value& input, const CallArgs& args, const CallContext&) {
  STRATA_RETURN_IF_ERROR(args.check("round", 2, {"precision", "method"}));
  STRATA_ASSIGN_OR_RETURN(int64_t precision, args.int_at(0, "precision", 0));
  STRATA_ASSIGN_OR_RETURN(std::string method, args.string_at(1, "method", "common"));
  if (!input.is_number()) return Status::InvalidArgument(std::string("cannot round a '") + input.type_name() + "'");
  if (precision < -300 || precision > 300) return Status::InvalidArgument("round precision out of range");
  double scale = std::pow(10.0, static_cast<double>(precision));
  double x = input.as_double() * scale;
  if (method == "common") {
    x = std::nearbyint(x);
    if (!input.is_float() && std::fabs(x / scale) >= 9.2e18) return Status::OutOfRange("round: integer overflow");
    // Python's round() keeps an int an int.
    if (!input.is_float()) return Value::Int(precision >= 0 ? input.as_int() : static_cast<int64_t>(x / scale));  // Python's round() rounds halves to even
  } else if (method == "ceil") {
    x = std::ceil(x);
  } else if (method == "floor") {
    x = std::floor(x);
  } else {
    return Status::InvalidArgument("method must be 'common', 'ceil' or 'floor'");
  }
  return Value::Float(x / scale);
}

Result<Value> tojson(const Value& input, const CallArgs& args, const CallContext& ctx) {
  STRATA_RETURN_IF_ERROR(args.check("tojson", 1, {"indent", "sort_keys", "ensure_ascii"}));
  STRATA_ASSIGN_OR_RETURN(int64_t indent, args.int_at(0, "indent", -1));
  if (indent > 64) return Status::InvalidArgument("indent above 64");
  if (args.bool_at(CallArgs::kKeywordOnly, "ensure_ascii", false)) return Status::Unsupported("tojson(ensure_ascii=true) is not supported");
  STRATA_ASSIGN_OR_RETURN(std::string text,
                          value_to_json(input, static_cast<int>(indent), args.bool_at(CallArgs::kKeywordOnly, "sort_keys", false), ctx.max_bytes));
  return Value::String(std::move(text));
}

Result<Value> default_value(const Value& input, const CallArgs& args, const CallContext&) {
  STRATA_RETURN_IF_ERROR(args.check("default", 2, {"default_value", "boolean"}));
  bool use_default = input.is_undefined() || (args.bool_at(1, "boolean", false) && !input.truthy());
  if (!use_default) return input;
  const Value* fallback = args.get(0, "default_value");
  return fallback != nullptr ? *fallback : Value::String("");
}

// Jinja's indent: every line but the first (and blank lines unless `blank`) gets the prefix.
Result<Value> indent(const Value& input, const CallArgs& args, const CallContext& ctx) {
  STRATA_RETURN_IF_ERROR(args.check("indent", 3, {"width", "first", "blank"}));
  const Value* width = args.get(0, "width");
  std::string prefix;
  if (width != nullptr && width->is_string()) {
    prefix = width->as_string();
  } else {
    STRATA_ASSIGN_OR_RETURN(int64_t n, args.int_at(0, "width", 4));
    if (n > 1024) return Status::InvalidArgument("indent width above 1024");
    prefix.assign(static_cast<size_t>(std::max<int64_t>(n, 0)), ' ');
  }
  bool first = args.bool_at(1, "first", false);
  bool blank = args.bool_at(2, "blank", false);
  std::string s = input.to_str() + "\n";  // Jinja's quirk: a trailing newline keeps its line
  std::string out;
  size_t line_start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\n' && s[i] != '\r') continue;
    std::string_view line(s.data() + line_start, i - line_start);
    if (line_start > 0) out.push_back('\n');
    bool is_first = line_start == 0;
    if (is_first ? first : (blank || !line.empty())) out += prefix;
    out += line;
    if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
    line_start = i + 1;
    STRATA_RETURN_IF_ERROR(check_size(out.size(), ctx));
  }
  return Value::String(std::move(out));
}

struct NamedTextFilter {
  std::string_view name;
  FilterFn fn;
};

constexpr NamedTextFilter kTextFilters[] = {
    {"trim", trim},         {"upper", upper},       {"lower", lower},         {"capitalize", capitalize},
    {"title", title},       {"replace", replace},   {"string", string},       {"safe", safe},
    {"escape", escape},     {"int", to_int},        {"float", to_float},      {"abs", abs_value},
    {"round", round_value}, {"tojson", tojson},     {"default", default_value}, {"indent", indent},
};

}  // namespace

FilterFn find_text_filter(std::string_view name) {
  for (const NamedTextFilter& f : kTextFilters) {
    if (f.name == name) return f.fn;
  }
  return nullptr;
}

}  // namespace strata::jinja
