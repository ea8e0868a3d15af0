#include "chat/jinja_predicates.h"

#include <string>

#include "chat/jinja_operators.h"

namespace strata::jinja {
namespace {

constexpr std::string_view kTests[] = {
    "defined", "undefined", "none",    "boolean", "true",     "false",      "integer",     "float",
    "number",  "string",    "mapping", "sequence", "iterable", "callable",  "sameas",      "eq",
    "equalto", "==",        "ne",      "!=",       "lt",       "lessthan",  "<",           "le",
    "<=",      "gt",        "greaterthan", ">",    "ge",       ">=",        "in",          "odd",
    "even",    "divisibleby", "lower", "upper"};

Result<const Value*> required_arg(std::string_view test, const CallArgs& args) {
  const Value* other = args.get(0, "value");
  if (other == nullptr) return Status::InvalidArgument("test '" + std::string(test) + "' needs an argument");
  return other;
}

Result<int64_t> integer_operand(std::string_view test, const Value& v) {
  if (!v.is_int() && !v.is_bool()) {
    return Status::InvalidArgument("test '" + std::string(test) + "' needs an integer, got " + v.type_name());
  }
  return v.as_int();
}

// str.islower()/isupper(): at least one cased character and none of the other case.
bool has_case(const std::string& s, bool want_lower) {
  bool any_cased = false;
  for (char c : s) {
    bool lower = c >= 'a' && c <= 'z', upper = c >= 'A' && c <= 'Z';
    if ((want_lower && upper) || (!want_lower && lower)) return false;
    any_cased = any_cased || lower || upper;
  }
  return any_cased;
}

bool same_object(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::kList: return &a.as_list() == &b.as_list();
    case Value::Kind::kDict:
    case Value::Kind::kNamespace: return &a.as_dict() == &b.as_dict();
    case Value::Kind::kString: return &a.as_string() == &b.as_string() || a.as_string() == b.as_string();
    default: return values_equal(a, b);
  }
}

Result<bool> comparison_test(std::string_view name, const Value& value, const CallArgs& args) {
  STRATA_ASSIGN_OR_RETURN(const Value* other, required_arg(name, args));
  std::string_view op = name;
  if (name == "eq" || name == "equalto") op = "==";
  if (name == "ne") op = "!=";
  if (name == "lt" || name == "lessthan") op = "<";
  if (name == "le") op = "<=";
  if (name == "gt" || name == "greaterthan") op = ">";
  if (name == "ge") op = ">=";
  return compare_op(op, value, *other);
}

}  // namespace

bool is_known_test(std::string_view name) {
  for (std::string_view t : kTests) {
    if (t == name) return true;
  }
  return false;
}

Result<bool> apply_test(std::string_view name, const Value& value, const CallArgs& args) {
  using K = Value::Kind;
  K k = value.kind();
  if (name == "defined") return k != K::kUndefined;
  if (name == "undefined") return k == K::kUndefined;
  if (name == "none") return k == K::kNone;
  if (name == "boolean") return k == K::kBool;
  if (name == "true") return k == K::kBool && value.as_bool();
  if (name == "false") return k == K::kBool && !value.as_bool();
  if (name == "integer") return k == K::kInt;
  if (name == "float") return k == K::kFloat;
  if (name == "number") return value.is_number();
  if (name == "string") return k == K::kString;
  if (name == "mapping") return k == K::kDict;
  if (name == "sequence" || name == "iterable") return k == K::kString || k == K::kList || k == K::kDict;
  if (name == "callable") return k == K::kCallable;
  if (name == "lower" || name == "upper") return k == K::kString && has_case(value.as_string(), name == "lower");
  if (name == "sameas") {
    STRATA_ASSIGN_OR_RETURN(const Value* other, required_arg(name, args));
    return same_object(value, *other);
  }
  if (name == "in") {
    STRATA_ASSIGN_OR_RETURN(const Value* container, required_arg(name, args));
    return contains(*container, value);
  }
  if (name == "odd" || name == "even") {
    STRATA_ASSIGN_OR_RETURN(int64_t n, integer_operand(name, value));
    return (n % 2 != 0) == (name == "odd");
  }
  if (name == "divisibleby") {
    STRATA_ASSIGN_OR_RETURN(int64_t n, integer_operand(name, value));
    STRATA_ASSIGN_OR_RETURN(const Value* divisor_value, required_arg(name, args));
    STRATA_ASSIGN_OR_RETURN(int64_t divisor, integer_operand(name, *divisor_value));
    if (divisor == 0) return Status::InvalidArgument("test 'divisibleby' with a zero divisor");
    return divisor == -1 || n % divisor == 0;
  }
  if (is_known_test(name)) return comparison_test(name, value, args);
  return Status::InvalidArgument("unknown test '" + std::string(name) + "'");
}

}  // namespace strata::jinja
