#include "chat/jinja_methods.h"

#include <string>

#include "chat/jinja_operators.h"
#include "chat/jinja_pystr.h"

namespace strata::jinja {
namespace {

constexpr std::string_view kStringMethods[] = {
    "strip", "lstrip", "rstrip", "startswith", "endswith", "split",   "splitlines", "upper",   "lower",   "title",
    "capitalize", "replace", "find", "count", "join",     "isdigit", "isalpha",    "isalnum", "isspace", "islower",
    "isupper"};
constexpr std::string_view kDictMethods[] = {"get", "items", "keys", "values"};
constexpr std::string_view kListMethods[] = {"append", "pop"};  // mutators a built list takes
constexpr std::string_view kMutators[] = {"append", "extend", "insert", "pop", "remove", "clear",
                                          "update", "setdefault", "popitem", "sort", "reverse"};

bool listed(std::string_view name, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

template <size_t N>
bool listed(std::string_view name, const std::string_view (&names)[N]) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

Value string_list(const std::vector<std::string>& parts) {
  Value::List out;
  for (const std::string& p : parts) out.push_back(Value::String(p));
  return Value::MakeList(std::move(out));
}

// startswith/endswith take one string or a tuple of them.
Result<bool> affix_match(const std::string& s, const Value* affix, bool at_start) {
  if (affix == nullptr) return Status::InvalidArgument("missing prefix/suffix argument");
  Value::List options = affix->is_list() ? affix->as_list() : Value::List{*affix};
  for (const Value& option : options) {
    if (!option.is_string()) return Status::InvalidArgument(std::string("expected a string, got ") + option.type_name());
    const std::string& a = option.as_string();
    if (a.size() <= s.size() && s.compare(at_start ? 0 : s.size() - a.size(), a.size(), a) == 0) return true;
  }
  return false;
}

bool all_chars(const std::string& s, bool (*pred)(uint32_t)) {
  if (s.empty()) return false;
  for (size_t pos = 0; pos < s.size();) {
    if (!pred(utf8_next(s, &pos))) return false;
  }
  return true;
}

bool ascii_digit(uint32_t c) { return c >= '0' && c <= '9'; }
bool ascii_alpha(uint32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool ascii_alnum(uint32_t c) { return ascii_digit(c) || ascii_alpha(c); }

Result<Value> string_predicate(const std::string& s, std::string_view name) {
  if (name == "isdigit") return Value::Bool(all_chars(s, ascii_digit));
  if (name == "isalpha") return Value::Bool(all_chars(s, ascii_alpha));
  if (name == "isalnum") return Value::Bool(all_chars(s, ascii_alnum));
  if (name == "isspace") return Value::Bool(all_chars(s, is_python_space));
  bool want_lower = name == "islower";
  bool any_cased = false;
  for (char c : s) {
    bool lower = c >= 'a' && c <= 'z', upper = c >= 'A' && c <= 'Z';
    if ((want_lower && upper) || (!want_lower && lower)) return Value::Bool(false);
    any_cased = any_cased || lower || upper;
  }
  return Value::Bool(any_cased);
}

Result<Value> split_method(const std::string& s, std::string_view name, const CallArgs& args) {
  if (name == "splitlines") {
    std::vector<std::string> lines;
    size_t start = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '\n' && s[i] != '\r') continue;
      lines.push_back(s.substr(start, i - start));
      if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
      start = i + 1;
    }
    if (start < s.size()) lines.push_back(s.substr(start));
    return string_list(lines);
  }
  STRATA_RETURN_IF_ERROR(args.check("split", 2, {"sep", "maxsplit"}));
  STRATA_ASSIGN_OR_RETURN(std::optional<std::string> sep, args.optional_string_at(0, "sep"));
  STRATA_ASSIGN_OR_RETURN(int64_t maxsplit, args.int_at(1, "maxsplit", -1));
  if (sep && sep->empty()) return Status::InvalidArgument("split: empty separator");
  return string_list(python_split(s, sep, maxsplit));
}

Result<Value> string_method(const std::string& s, std::string_view name, const CallArgs& args, const CallContext& ctx) {
  if (listed(name, {"strip", "lstrip", "rstrip"})) {
    STRATA_ASSIGN_OR_RETURN(std::optional<std::string> chars, args.optional_string_at(0, "chars"));
    return Value::String(python_strip(s, chars, name != "rstrip", name != "lstrip"));
  }
  if (name == "startswith" || name == "endswith") {
    STRATA_ASSIGN_OR_RETURN(bool match, affix_match(s, args.get(0, "prefix"), name == "startswith"));
    return Value::Bool(match);
  }
  if (name == "split" || name == "splitlines") return split_method(s, name, args);
  if (name == "upper") return Value::String(ascii_upper(s));
  if (name == "lower") return Value::String(ascii_lower(s));
  if (name == "title") return Value::String(python_title(s));
  if (name == "capitalize") return Value::String(python_capitalize(s));
  if (name == "replace") {
    STRATA_ASSIGN_OR_RETURN(std::string from, args.string_at(0, "old", ""));
    STRATA_ASSIGN_OR_RETURN(std::string to, args.string_at(1, "new", ""));
    STRATA_ASSIGN_OR_RETURN(int64_t count, args.int_at(2, "count", -1));
    return bounded_replace(s, from, to, count, ctx);
  }
  if (name == "find" || name == "count") {
    STRATA_ASSIGN_OR_RETURN(std::string sub, args.string_at(0, "sub", ""));
    if (name == "find") {
      size_t pos = s.find(sub);
      return Value::Int(pos == std::string::npos ? -1 : static_cast<int64_t>(utf8_length(s.substr(0, pos))));
    }
    if (sub.empty()) return Value::Int(static_cast<int64_t>(utf8_length(s)) + 1);
    int64_t n = 0;
    for (size_t pos = s.find(sub); pos != std::string::npos; pos = s.find(sub, pos + sub.size())) ++n;
    return Value::Int(n);
  }
  if (name == "join") {
    const Value* items = args.get(0, "iterable");
    if (items == nullptr) return Status::InvalidArgument("join needs an iterable");
    STRATA_ASSIGN_OR_RETURN(Value::List values, iterate(*items));
    std::string out;
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out += s;
      out += values[i].to_str();
      STRATA_RETURN_IF_ERROR(check_size(out.size(), ctx));
    }
    return Value::String(std::move(out));
  }
  return string_predicate(s, name);
}

Result<Value> dict_method(const Dict& dict, std::string_view name, const CallArgs& args) {
  if (name == "get") {
    const Value* key = args.get(0, "key");
    if (key == nullptr) return Status::InvalidArgument("get needs a key");
    const std::optional<std::string> stored = Dict::stored_key(*key);
    const Value* found = stored ? dict.find(*stored) : nullptr;
    if (found != nullptr) return *found;
    const Value* fallback = args.get(1, "default");
    return fallback != nullptr ? *fallback : Value::None();
  }
  Value::List out;
  for (const auto& [k, v] : dict.entries()) {
    if (name == "keys") {
      out.push_back(Dict::key_value(k));
    } else if (name == "values") {
      out.push_back(v);
    } else {
      out.push_back(Value::MakeTuple({Dict::key_value(k), v}));
    }
  }
  return Value::MakeList(std::move(out));
}

// append(x) and pop([index]) on a list the template built.
Result<Value> list_method(const Value& list, std::string_view name, const CallArgs& args) {
  if (!list.is_mutable_list()) {
    return Status::Unsupported("templates cannot modify values ('" + std::string(name) + "' on a " +
                               (list.is_tuple() ? "tuple" : "list the template was given") + ")");
  }
  Value::List& items = list.mutable_list();
  STRATA_RETURN_IF_ERROR(args.check(name, 1, {}));
  if (name == "append") {
    if (args.positional.size() != 1) return Status::InvalidArgument("append() takes exactly one argument");
    if (items.size() >= kMaxListItems) {
      return Status::ResourceExhausted("list exceeds " + std::to_string(kMaxListItems) + " items");
    }
    items.push_back(args.positional[0]);
    return Value::None();
  }
  if (items.empty()) return Status::InvalidArgument("pop from empty list");
  STRATA_ASSIGN_OR_RETURN(int64_t index, args.int_at(0, "index", -1));
  const int64_t n = static_cast<int64_t>(items.size());
  if (index < 0) index += n;
  if (index < 0 || index >= n) return Status::InvalidArgument("pop index out of range");
  Value popped = std::move(items[static_cast<size_t>(index)]);
  items.erase(items.begin() + index);
  return popped;
}

}  // namespace

bool has_method(const Value& obj, std::string_view name) {
  if (obj.is_string()) return listed(name, kStringMethods);
  if (obj.is_dict()) return listed(name, kDictMethods) || listed(name, kMutators);
  if (obj.is_list()) return listed(name, kMutators);
  return false;
}

Result<Value> call_method(const Value& obj, std::string_view name, const CallArgs& args, const CallContext& ctx) {
  if (obj.is_list() && listed(name, kListMethods)) return list_method(obj, name, args);
  if (listed(name, kMutators)) {
    return Status::Unsupported("templates cannot modify values ('" + std::string(name) + "' on a " + obj.type_name() +
                               ")");
  }
  if (obj.is_string()) return string_method(obj.as_string(), name, args, ctx);
  if (obj.is_dict()) return dict_method(obj.as_dict(), name, args);
  return Status::InvalidArgument(std::string("'") + obj.type_name() + "' object has no method '" + std::string(name) + "'");
}

}  // namespace strata::jinja
