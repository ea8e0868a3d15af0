// Value: the dynamic value a Jinja template computes with, modelled on the Python objects
// that Jinja2 (as Hugging Face runs it) would hold: undefined, None, bool, int, float, str,
// list (tuples are lists too), dict (insertion-ordered, string keys), namespace and callables.
//
// Lists and dicts are shared by reference, as in Python. Templates only read them, except a
// namespace, whose attributes `{% set ns.x = ... %}` assigns, and a list the template built itself,
// which append() and pop() change in place (jinja_methods.h); the lists of a render's inputs
// (MakeInputList) are read-only. A Value is not thread-safe to mutate concurrently; each render
// builds its own values and never changes its inputs, so renders never share mutable state.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace strata::jinja {

struct Stmt;
class Dict;

// A function value: a global builtin (range, namespace, raise_exception...) or a macro.
struct Callable {
  std::string name;
  const Stmt* macro = nullptr;  // points into the parsed template, which outlives every render
};

class Value {
 public:
  enum class Kind : uint8_t { kUndefined, kNone, kBool, kInt, kFloat, kString, kList, kDict, kNamespace, kCallable };
  using List = std::vector<Value>;

  Value() = default;  // undefined
  static Value None() { return Value(Storage(std::in_place_index<1>, nullptr)); }
  static Value Bool(bool b) { return Value(Storage(std::in_place_index<2>, b)); }
  static Value Int(int64_t i) { return Value(Storage(std::in_place_index<3>, i)); }
  static Value Float(double d) { return Value(Storage(std::in_place_index<4>, d)); }
  static Value String(std::string s) {
    return Value(Storage(std::in_place_index<5>, std::make_shared<const std::string>(std::move(s))));
  }
  // A list the template builds (a literal, a filter's result...): append() and pop() may change it.
  static Value MakeList(List items);
  // A list of the render's inputs (the context: messages, tools...): read-only.
  static Value MakeInputList(List items);
  // A tuple is a list that prints as (a, b) and never equals a list, as in Python.
  static Value MakeTuple(List items);
  static Value MakeDict(Dict dict);
  static Value MakeNamespace(Dict dict);
  static Value MakeCallable(Callable c);

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is_undefined() const { return kind() == Kind::kUndefined; }
  bool is_none() const { return kind() == Kind::kNone; }
  bool is_bool() const { return kind() == Kind::kBool; }
  bool is_int() const { return kind() == Kind::kInt; }
  bool is_float() const { return kind() == Kind::kFloat; }
  // Python treats bool as an int subtype in arithmetic and comparisons.
  bool is_number() const { return is_int() || is_float() || is_bool(); }
  bool is_string() const { return kind() == Kind::kString; }
  bool is_list() const { return kind() == Kind::kList; }
  bool is_dict() const { return kind() == Kind::kDict; }
  bool is_namespace() const { return kind() == Kind::kNamespace; }
  bool is_callable() const { return kind() == Kind::kCallable; }

  bool as_bool() const { return std::get<2>(v_); }
  int64_t as_int() const;     // bool or int
  double as_double() const;   // bool, int or float
  const std::string& as_string() const { return *std::get<5>(v_); }
  const List& as_list() const { return *std::get<6>(v_).items; }
  bool is_tuple() const { return is_list() && std::get<6>(v_).tuple; }
  // A list the template built, neither a tuple nor an input: mutable_list() may change it.
  bool is_mutable_list() const { return is_list() && !std::get<6>(v_).tuple && !std::get<6>(v_).input; }
  List& mutable_list() const { return *std::get<6>(v_).items; }
  // The same for every Value that shares a list's items.
  const void* list_identity() const { return std::get<6>(v_).items.get(); }
  const Dict& as_dict() const;          // dict or namespace
  Dict& mutable_namespace() const { return *std::get<8>(v_).dict; }
  const Callable& as_callable() const { return std::get<9>(v_); }

  bool truthy() const;
  // Python's str(): what `{{ value }}` prints. Undefined prints as the empty string.
  std::string to_str() const;
  // Python's repr(), used inside lists and dicts.
  std::string repr() const;
  // Containers nested deeper than this (possible only through a namespace or a list holding itself)
  // print as "[...]" and compare unequal, as Python does for recursive containers.
  static constexpr int kMaxNesting = 200;
  // The Python type name used in error messages: "str", "int", "list", "dict", "NoneType"...
  const char* type_name() const;

 private:
  struct ListRef {
    std::shared_ptr<List> items;  // changed only through mutable_list(), and only when is_mutable_list()
    bool tuple = false;
    bool input = false;
  };
  struct NamespaceRef {
    std::shared_ptr<Dict> dict;
  };
  // Strings are shared so that copying a value (into a list, a variable, a loop item) never
  // copies text: memory stays bounded by the number of values, not their repetitions.
  using Storage = std::variant<std::monostate, std::nullptr_t, bool, int64_t, double, std::shared_ptr<const std::string>,
                               ListRef, std::shared_ptr<const Dict>, NamespaceRef, Callable>;
  explicit Value(Storage v) : v_(std::move(v)) {}
  void repr_to(std::string* out, int depth) const;

  Storage v_;
};

// An insertion-ordered map (Python dicts keep insertion order, and tojson output must follow it).
// Keys are strings, or ints (a literal such as Seed-OSS's {0: 0, 512: 128}), which are stored as
// their stored_key(): a NUL then their decimal digits, text no key a template or request writes
// starts with; key_value() gives the key back as the Value it was. Lookups are linear: template
// dicts are small.
class Dict {
 public:
  // The stored form of a key: a string as it is, an int (or bool, as Python hashes True as 1)
  // as NUL + its decimal digits; nullopt for a key of another type (unhashable, or not supported).
  static std::optional<std::string> stored_key(const Value& key);
  // A stored key as the Value it was: an int for NUL + digits, else the string.
  static Value key_value(const std::string& stored);
  // A stored key as Python's str() and json.dumps write a key: an int's digits, a string as it is.
  static std::string key_text(const std::string& stored);
  const Value* find(std::string_view key) const;
  void set(std::string key, Value value);
  // Adds an entry without looking for the key (set() searches linearly). The caller guarantees
  // the key is not in the dict yet, e.g. keys of one JSON object.
  void append_new_key(std::string key, Value value) { entries_.emplace_back(std::move(key), std::move(value)); }
  void clear() { entries_.clear(); }
  size_t size() const { return entries_.size(); }
  const std::vector<std::pair<std::string, Value>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<std::string, Value>> entries_;
};

// Python ==: numbers compare by value across int/float/bool, containers element-wise.
bool values_equal(const Value& a, const Value& b);

// Python <-ordering for numbers, strings and lists: -1, 0 or 1; false when the types are not
// orderable against each other.
bool values_compare(const Value& a, const Value& b, int* order);

}  // namespace strata::jinja
