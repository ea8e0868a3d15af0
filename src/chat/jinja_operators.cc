#include "chat/jinja_operators.h"

#include <cmath>
#include <limits>
#include <charconv>
#include <string>

#include "chat/jinja_pystr.h"

namespace strata::jinja {
namespace {

Status unsupported(std::string_view op, const Value& a, const Value& b) {
  return Status::InvalidArgument("unsupported operand type(s) for " + std::string(op) + ": '" + a.type_name() +
                                 "' and '" + b.type_name() + "'");
}

Status overflow(std::string_view op) {
  return Status::OutOfRange("integer overflow in '" + std::string(op) + "'");
}

Result<Value> repeat(const Value& seq, int64_t times, const CallContext& ctx) {
  if (times < 0) times = 0;
  if (seq.is_string()) {
    const std::string& s = seq.as_string();
    if (!s.empty() && static_cast<uint64_t>(times) > ctx.max_bytes / s.size()) {
      return check_size(ctx.max_bytes + 1, ctx);
    }
    std::string out;
    out.reserve(s.size() * static_cast<size_t>(times));
    for (int64_t i = 0; i < times; ++i) out += s;
    return Value::String(std::move(out));
  }
  const Value::List& items = seq.as_list();
  if (!items.empty() && static_cast<uint64_t>(times) > kMaxListItems / items.size()) {
    return Status::ResourceExhausted("list repetition exceeds " + std::to_string(kMaxListItems) + " items");
  }
  Value::List out;
  for (int64_t i = 0; i < times; ++i) out.insert(out.end(), items.begin(), items.end());
  return Value::MakeList(std::move(out));
}

Result<Value> int_pow(int64_t base, int64_t exp) {
  if (base == 0 || base == 1) return Value::Int(exp == 0 ? 1 : base);
  if (base == -1) return Value::Int(exp % 2 == 0 ? 1 : -1);
  int64_t result = 1;
  for (int64_t i = 0; i < exp; ++i) {  // |base| >= 2 overflows within 64 steps
    if (__builtin_mul_overflow(result, base, &result)) return overflow("**");
  }
  return Value::Int(result);
}

Result<Value> int_arith(std::string_view op, int64_t x, int64_t y) {
  int64_t r = 0;
  if (op == "+") {
    if (__builtin_add_overflow(x, y, &r)) return overflow(op);
  } else if (op == "-") {
    if (__builtin_sub_overflow(x, y, &r)) return overflow(op);
  } else if (op == "*") {
    if (__builtin_mul_overflow(x, y, &r)) return overflow(op);
  } else if (op == "/") {
    if (y == 0) return Status::InvalidArgument("division by zero");
    return Value::Float(static_cast<double>(x) / static_cast<double>(y));
  } else if (op == "//" || op == "%") {
    if (y == 0) return Status::InvalidArgument("integer division or modulo by zero");
    if (x == std::numeric_limits<int64_t>::min() && y == -1) return overflow(op);
    int64_t q = x / y, m = x % y;
    if (m != 0 && ((m < 0) != (y < 0))) {  // Python floors toward negative infinity
      q -= 1;
      m += y;
    }
    r = op == "//" ? q : m;
  } else if (op == "**") {
    if (y < 0) return Value::Float(std::pow(static_cast<double>(x), static_cast<double>(y)));
    return int_pow(x, y);
  }
  return Value::Int(r);
}

Result<Value> float_arith(std::string_view op, double x, double y) {
  if (op == "+") return Value::Float(x + y);
  if (op == "-") return Value::Float(x - y);
  if (op == "*") return Value::Float(x * y);
  if (op == "**") return Value::Float(std::pow(x, y));
  if (y == 0.0) return Status::InvalidArgument("float division by zero");
  if (op == "/") return Value::Float(x / y);
  double q = std::floor(x / y);
  if (op == "//") return Value::Float(q);
  double m = std::fmod(x, y);
  if (m != 0.0 && ((m < 0) != (y < 0))) m += y;
  return Value::Float(m);
}

}  // namespace

Result<Value> binary_op(std::string_view op, const Value& a, const Value& b, const CallContext& ctx) {
  if (op == "~") {
    std::string out = a.to_str();
    out += b.to_str();
    STRATA_RETURN_IF_ERROR(check_size(out.size(), ctx));
    return Value::String(std::move(out));
  }
  if (a.is_undefined() || b.is_undefined()) {
    return Status::InvalidArgument("undefined value used with '" + std::string(op) + "'");
  }
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return float_arith(op, a.as_double(), b.as_double());
    return int_arith(op, a.as_int(), b.as_int());
  }
  if (op == "+" && a.is_string() && b.is_string()) {
    STRATA_RETURN_IF_ERROR(check_size(a.as_string().size() + b.as_string().size(), ctx));
    return Value::String(a.as_string() + b.as_string());
  }
  if (op == "+" && a.is_list() && b.is_list()) {
    if (a.as_list().size() + b.as_list().size() > kMaxListItems) {
      return Status::ResourceExhausted("list exceeds " + std::to_string(kMaxListItems) + " items");
    }
    Value::List out = a.as_list();
    out.insert(out.end(), b.as_list().begin(), b.as_list().end());
    return Value::MakeList(std::move(out));
  }
  if (op == "*") {
    bool a_seq = a.is_string() || a.is_list();
    bool b_seq = b.is_string() || b.is_list();
    if (a_seq && (b.is_int() || b.is_bool())) return repeat(a, b.as_int(), ctx);
    if (b_seq && (a.is_int() || a.is_bool())) return repeat(b, a.as_int(), ctx);
  }
  if (op == "%" && a.is_string()) return Status::Unsupported("printf-style string formatting with '%' is not supported");
  return unsupported(op, a, b);
}

Result<Value> unary_op(std::string_view op, const Value& a) {
  if (!a.is_number()) {
    return Status::InvalidArgument("bad operand type for unary " + std::string(op) + ": '" + a.type_name() + "'");
  }
  if (op == "+") return a.is_bool() ? Value::Int(a.as_int()) : a;
  if (a.is_float()) return Value::Float(-a.as_double());
  if (a.as_int() == std::numeric_limits<int64_t>::min()) return overflow("-");
  return Value::Int(-a.as_int());
}

Result<bool> contains(const Value& container, const Value& item) {
  switch (container.kind()) {
    case Value::Kind::kUndefined: return false;  // Jinja's Undefined iterates as empty
    case Value::Kind::kString:
      if (!item.is_string()) {
        return Status::InvalidArgument(std::string("'in <string>' requires string as left operand, not ") +
                                       item.type_name());
      }
      return container.as_string().find(item.as_string()) != std::string::npos;
    case Value::Kind::kList:
      for (const Value& v : container.as_list()) {
        if (values_equal(v, item)) return true;
      }
      return false;
    case Value::Kind::kDict:
    case Value::Kind::kNamespace:
      if (std::optional<std::string> key = Dict::stored_key(item); key) return container.as_dict().find(*key) != nullptr;
      return false;
    default:
      return Status::InvalidArgument(std::string("argument of type '") + container.type_name() + "' is not iterable");
  }
}

Result<bool> compare_op(std::string_view op, const Value& a, const Value& b) {
  if (op == "==") return values_equal(a, b);
  if (op == "!=") return !values_equal(a, b);
  if (op == "in") return contains(b, a);
  if (op == "not in") {
    STRATA_ASSIGN_OR_RETURN(bool found, contains(b, a));
    return !found;
  }
  int order = 0;
  if (!values_compare(a, b, &order)) {
    return Status::InvalidArgument("'" + std::string(op) + "' not supported between instances of '" + a.type_name() +
                                   "' and '" + b.type_name() + "'");
  }
  if (op == "<") return order < 0;
  if (op == ">") return order > 0;
  if (op == "<=") return order <= 0;
  return order >= 0;
}

Result<Value> bounded_replace(std::string_view s, std::string_view from, std::string_view to, int64_t count,
                              const CallContext& ctx) {
  size_t n_hits = from.empty() ? utf8_length(s) + 1 : 0;
  for (size_t pos = s.find(from); !from.empty() && pos != std::string_view::npos; pos = s.find(from, pos + from.size())) {
    ++n_hits;
  }
  if (count >= 0 && static_cast<uint64_t>(count) < n_hits) n_hits = static_cast<size_t>(count);
  if (to.size() > from.size()) {
    size_t growth = to.size() - from.size();
    if (n_hits > ctx.max_bytes / growth) return check_size(ctx.max_bytes + 1, ctx);
    STRATA_RETURN_IF_ERROR(check_size(s.size() + n_hits * growth, ctx));
  }
  return Value::String(python_replace(s, from, to, count));
}

Result<Value::List> iterate(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kUndefined: return Value::List{};
    case Value::Kind::kList: return v.as_list();
    case Value::Kind::kString: {
      Value::List chars;
      const std::string& s = v.as_string();
      if (s.size() > kMaxListItems && utf8_length(s) > kMaxListItems) {
        return Status::ResourceExhausted("iterating a string of more than " + std::to_string(kMaxListItems) +
                                         " characters");
      }
      std::vector<size_t> bounds = utf8_boundaries(s);
      for (size_t i = 0; i + 1 < bounds.size(); ++i) chars.push_back(Value::String(s.substr(bounds[i], bounds[i + 1] - bounds[i])));
      return chars;
    }
    case Value::Kind::kDict: {
      Value::List keys;
      for (const auto& [k, item] : v.as_dict().entries()) keys.push_back(Dict::key_value(k));
      return keys;
    }
    default: return Status::InvalidArgument(std::string("'") + v.type_name() + "' object is not iterable");
  }
}

Value get_attr(const Value& obj, std::string_view name) {
  if (!obj.is_dict() && !obj.is_namespace()) return Value();
  const Value* found = obj.as_dict().find(name);
  return found != nullptr ? *found : Value();
}

Value get_item(const Value& obj, const Value& key) {
  if (obj.is_dict() || obj.is_namespace()) {
    const std::optional<std::string> stored = Dict::stored_key(key);
    return stored ? get_attr(obj, *stored) : Value();
  }
  if (!key.is_int() && !key.is_bool()) return Value();
  int64_t index = key.as_int();
  if (obj.is_list()) {
    int64_t n = static_cast<int64_t>(obj.as_list().size());
    if (index < 0) index += n;
    if (index < 0 || index >= n) return Value();
    return obj.as_list()[static_cast<size_t>(index)];
  }
  if (obj.is_string()) {
    const std::string& s = obj.as_string();
    std::vector<size_t> bounds = utf8_boundaries(s);
    int64_t n = static_cast<int64_t>(bounds.size()) - 1;
    if (index < 0) index += n;
    if (index < 0 || index >= n) return Value();
    size_t i = static_cast<size_t>(index);
    return Value::String(s.substr(bounds[i], bounds[i + 1] - bounds[i]));
  }
  return Value();
}

Result<Value> slice(const Value& obj, std::optional<int64_t> start, std::optional<int64_t> stop,
                    std::optional<int64_t> step) {
  if (!obj.is_list() && !obj.is_string()) {
    return Status::InvalidArgument(std::string("'") + obj.type_name() + "' object is not subscriptable");
  }
  int64_t by = step.value_or(1);
  if (by == 0) return Status::InvalidArgument("slice step cannot be zero");
  if (by == std::numeric_limits<int64_t>::min()) by = -std::numeric_limits<int64_t>::max();
  std::vector<size_t> bounds;
  if (obj.is_string()) bounds = utf8_boundaries(obj.as_string());
  int64_t n = obj.is_list() ? static_cast<int64_t>(obj.as_list().size()) : static_cast<int64_t>(bounds.size()) - 1;
  // Python's slice.indices(): negative bounds count from the end, then clamp.
  auto clamp = [&](std::optional<int64_t> bound, int64_t fallback) {
    if (!bound) return fallback;
    int64_t b = *bound;
    if (b < 0) b = b < -n ? (by < 0 ? -1 : 0) : b + n;
    else if (b >= n) b = by < 0 ? n - 1 : n;
    return b;
  };
  int64_t first = clamp(start, by < 0 ? n - 1 : 0);
  int64_t last = clamp(stop, by < 0 ? -1 : n);
  Value::List items;
  std::string text;
  for (int64_t i = first; by > 0 ? i < last : i > last; i += by) {
    if (obj.is_list()) {
      items.push_back(obj.as_list()[static_cast<size_t>(i)]);
    } else {
      size_t k = static_cast<size_t>(i);
      text.append(obj.as_string(), bounds[k], bounds[k + 1] - bounds[k]);
    }
    if ((by > 0 && i >= last - by) || (by < 0 && i <= last - by)) break;  // the next step reaches `last`
  }
  return obj.is_list() ? Value::MakeList(std::move(items)) : Value::String(std::move(text));
}

Value get_attr_path(const Value& obj, std::string_view path) {
  Value current = obj;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    std::string_view part = path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    int64_t index = 0;
    auto res = std::from_chars(part.data(), part.data() + part.size(), index);
    bool numeric = !part.empty() && res.ec == std::errc() && res.ptr == part.data() + part.size();
    current = numeric && current.is_list() ? get_item(current, Value::Int(index)) : get_attr(current, part);
    if (dot == std::string_view::npos) return current;
    start = dot + 1;
  }
}

}  // namespace strata::jinja
