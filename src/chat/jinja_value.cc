#include "chat/jinja_value.h"

#include <charconv>
#include <optional>

#include "chat/jinja_pystr.h"

namespace strata::jinja {

std::optional<std::string> Dict::stored_key(const Value& key) {
  if (key.is_string()) return key.as_string();
  if (key.is_int() || key.is_bool()) return std::string(1, '\0') + std::to_string(key.as_int());
  return std::nullopt;
}

namespace {

// The int a stored key holds (NUL + decimal digits, as stored_key() writes them); nullopt for any
// other key, a string that merely starts with NUL included.
std::optional<int64_t> stored_int(const std::string& stored) {
  if (stored.size() < 2 || stored[0] != '\0') return std::nullopt;
  int64_t value = 0;
  const char* end = stored.data() + stored.size();
  const auto [at, error] = std::from_chars(stored.data() + 1, end, value);
  if (error != std::errc() || at != end) return std::nullopt;
  return value;
}

}  // namespace

Value Dict::key_value(const std::string& stored) {
  const std::optional<int64_t> i = stored_int(stored);
  return i ? Value::Int(*i) : Value::String(stored);
}

std::string Dict::key_text(const std::string& stored) {
  const std::optional<int64_t> i = stored_int(stored);
  return i ? std::to_string(*i) : stored;
}

const Value* Dict::find(std::string_view key) const {
  for (const auto& [k, v] : entries_) {
    if (k == key) return &v;
  }
  return nullptr;
}

void Dict::set(std::string key, Value value) {
  for (auto& [k, v] : entries_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  entries_.emplace_back(std::move(key), std::move(value));
}

Value Value::MakeList(List items) {
  return Value(Storage(std::in_place_index<6>, ListRef{std::make_shared<List>(std::move(items)), false, false}));
}

Value Value::MakeInputList(List items) {
  return Value(Storage(std::in_place_index<6>, ListRef{std::make_shared<List>(std::move(items)), false, true}));
}

Value Value::MakeTuple(List items) {
  return Value(Storage(std::in_place_index<6>, ListRef{std::make_shared<List>(std::move(items)), true, false}));
}

Value Value::MakeDict(Dict dict) {
  return Value(Storage(std::in_place_index<7>, std::make_shared<const Dict>(std::move(dict))));
}

Value Value::MakeNamespace(Dict dict) {
  return Value(Storage(std::in_place_index<8>, NamespaceRef{std::make_shared<Dict>(std::move(dict))}));
}

Value Value::MakeCallable(Callable c) { return Value(Storage(std::in_place_index<9>, std::move(c))); }

int64_t Value::as_int() const { return is_bool() ? (as_bool() ? 1 : 0) : std::get<3>(v_); }

double Value::as_double() const { return is_float() ? std::get<4>(v_) : static_cast<double>(as_int()); }

const Dict& Value::as_dict() const { return is_namespace() ? *std::get<8>(v_).dict : *std::get<7>(v_); }

bool Value::truthy() const {
  switch (kind()) {
    case Kind::kUndefined:
    case Kind::kNone: return false;
    case Kind::kBool: return as_bool();
    case Kind::kInt: return as_int() != 0;
    case Kind::kFloat: return as_double() != 0.0;
    case Kind::kString: return !as_string().empty();
    case Kind::kList: return !as_list().empty();
    case Kind::kDict: return as_dict().size() != 0;
    case Kind::kNamespace:
    case Kind::kCallable: return true;
  }
  return false;
}

std::string Value::to_str() const {
  switch (kind()) {
    case Kind::kUndefined: return "";
    case Kind::kString: return as_string();
    default: return repr();
  }
}

std::string Value::repr() const {
  std::string out;
  repr_to(&out, 0);
  return out;
}

void Value::repr_to(std::string* out, int depth) const {
  if (depth > kMaxNesting) {
    *out += "[...]";
    return;
  }
  switch (kind()) {
    case Kind::kUndefined: return;
    case Kind::kNone: *out += "None"; return;
    case Kind::kBool: *out += as_bool() ? "True" : "False"; return;
    case Kind::kInt: *out += std::to_string(as_int()); return;
    case Kind::kFloat: *out += python_float_repr(as_double()); return;
    case Kind::kString: *out += python_string_repr(as_string()); return;
    case Kind::kList: {
      *out += is_tuple() ? "(" : "[";
      const List& items = as_list();
      for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0) *out += ", ";
        items[i].repr_to(out, depth + 1);
      }
      if (is_tuple() && items.size() == 1) *out += ",";
      *out += is_tuple() ? ")" : "]";
      return;
    }
    case Kind::kDict: {
      *out += "{";
      bool first = true;
      for (const auto& [k, v] : as_dict().entries()) {
        if (!first) *out += ", ";
        first = false;
        const Value key = Dict::key_value(k);
        *out += (key.is_int() ? std::to_string(key.as_int()) : python_string_repr(k)) + ": ";
        v.repr_to(out, depth + 1);
      }
      *out += "}";
      return;
    }
    case Kind::kNamespace: *out += "<Namespace>"; return;
    case Kind::kCallable: *out += "<function " + as_callable().name + ">"; return;
  }
}

const char* Value::type_name() const {
  switch (kind()) {
    case Kind::kUndefined: return "Undefined";
    case Kind::kNone: return "NoneType";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kFloat: return "float";
    case Kind::kString: return "str";
    case Kind::kList: return "list";
    case Kind::kDict: return "dict";
    case Kind::kNamespace: return "Namespace";
    case Kind::kCallable: return "function";
  }
  return "object";
}

namespace {

bool equal_at(const Value& a, const Value& b, int depth) {
  if (depth > Value::kMaxNesting) return false;
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return a.as_double() == b.as_double();
    return a.as_int() == b.as_int();
  }
  if (a.kind() != b.kind() || a.is_tuple() != b.is_tuple()) return false;
  switch (a.kind()) {
    case Value::Kind::kUndefined:
    case Value::Kind::kNone: return true;
    case Value::Kind::kString: return a.as_string() == b.as_string();
    case Value::Kind::kList: {
      const auto& x = a.as_list();
      const auto& y = b.as_list();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!equal_at(x[i], y[i], depth + 1)) return false;
      }
      return true;
    }
    case Value::Kind::kDict: {
      const Dict& x = a.as_dict();
      const Dict& y = b.as_dict();
      if (x.size() != y.size()) return false;
      for (const auto& [k, v] : x.entries()) {
        const Value* other = y.find(k);
        if (other == nullptr || !equal_at(v, *other, depth + 1)) return false;
      }
      return true;
    }
    case Value::Kind::kNamespace: return &a.as_dict() == &b.as_dict();
    case Value::Kind::kCallable: return a.as_callable().name == b.as_callable().name;
    default: return false;
  }
}

bool compare_at(const Value& a, const Value& b, int* order, int depth) {
  if (depth > Value::kMaxNesting) return false;
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) {
      double x = a.as_double(), y = b.as_double();
      *order = x < y ? -1 : (x > y ? 1 : 0);
    } else {
      int64_t x = a.as_int(), y = b.as_int();
      *order = x < y ? -1 : (x > y ? 1 : 0);
    }
    return true;
  }
  if (a.is_string() && b.is_string()) {
    int c = a.as_string().compare(b.as_string());  // byte order == code point order for UTF-8
    *order = c < 0 ? -1 : (c > 0 ? 1 : 0);
    return true;
  }
  if (a.is_list() && b.is_list() && a.is_tuple() == b.is_tuple()) {
    const auto& x = a.as_list();
    const auto& y = b.as_list();
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (equal_at(x[i], y[i], depth + 1)) continue;
      return compare_at(x[i], y[i], order, depth + 1);
    }
    *order = x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
    return true;
  }
  return false;
}

}  // namespace

bool values_equal(const Value& a, const Value& b) { return equal_at(a, b, 0); }

bool values_compare(const Value& a, const Value& b, int* order) { return compare_at(a, b, order, 0); }

}  // namespace strata::jinja
