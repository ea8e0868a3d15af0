// Filters over sequences and mappings.
#include <algorithm>
#include <string>

#include "chat/jinja_filters.h"
#include "chat/jinja_filters_impl.h"
#include "chat/jinja_operators.h"
#include "chat/jinja_predicates.h"
#include "chat/jinja_pystr.h"

namespace strata::jinja {
namespace {

Result<Value> length(const Value& input, const CallArgs&, const CallContext&) {
  switch (input.kind()) {
    case Value::Kind::kUndefined: return Value::Int(0);
    case Value::Kind::kString: return Value::Int(static_cast<int64_t>(utf8_length(input.as_string())));
    case Value::Kind::kList: return Value::Int(static_cast<int64_t>(input.as_list().size()));
    case Value::Kind::kDict:
    case Value::Kind::kNamespace: return Value::Int(static_cast<int64_t>(input.as_dict().size()));
    default: return Status::InvalidArgument(std::string("object of type '") + input.type_name() + "' has no len()");
  }
}

Result<Value> first(const Value& input, const CallArgs&, const CallContext&) {
  STRATA_ASSIGN_OR_RETURN(Value::List items, iterate(input));
  return items.empty() ? Value() : items.front();
}

Result<Value> last(const Value& input, const CallArgs&, const CallContext&) {
  STRATA_ASSIGN_OR_RETURN(Value::List items, iterate(input));
  return items.empty() ? Value() : items.back();
}

Result<Value> list(const Value& input, const CallArgs&, const CallContext&) {
  STRATA_ASSIGN_OR_RETURN(Value::List items, iterate(input));
  return Value::MakeList(std::move(items));
}

Result<Value> reverse(const Value& input, const CallArgs&, const CallContext&) {
  STRATA_ASSIGN_OR_RETURN(Value::List items, iterate(input));
  std::reverse(items.begin(), items.end());
  if (!input.is_string()) return Value::MakeList(std::move(items));
  std::string out;
  for (const Value& c : items) out += c.as_string();
  return Value::String(std::move(out));
}

Result<Value> items(const Value& input, const CallArgs&, const CallContext&) {
  if (input.is_undefined()) return Value::MakeList({});
  if (!input.is_dict()) return Status::InvalidArgument(std::string("can only list items of a mapping, got ") + input.type_name());
  Value::List pairs;
  for (const auto& [k, v] : input.as_dict().entries()) pairs.push_back(Value::MakeTuple({Dict::key_value(k), v}));
  return Value::MakeList(std::move(pairs));
}

// The value `attribute=` selects from an item, or the item itself.
Result<Value> attribute_of(const Value& item, const CallArgs& args, size_t attr_index) {
  STRATA_ASSIGN_OR_RETURN(std::optional<std::string> attr, args.optional_string_at(attr_index, "attribute"));
  return attr ? get_attr_path(item, *attr) : item;
}

Result<Value> join(const Value& input, const CallArgs& args, const CallContext& ctx) {
  STRATA_RETURN_IF_ERROR(args.check("join", 2, {"d", "attribute"}));
  STRATA_ASSIGN_OR_RETURN(std::string sep, args.string_at(0, "d", ""));
  STRATA_ASSIGN_OR_RETURN(Value::List values, iterate(input));
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    STRATA_ASSIGN_OR_RETURN(Value v, attribute_of(values[i], args, 1));
    if (i > 0) out += sep;
    out += v.to_str();
    STRATA_RETURN_IF_ERROR(check_size(out.size(), ctx));
  }
  return Value::String(std::move(out));
}

// selectattr/rejectattr/select/reject: keep items whose (attribute's) test result is `keep`.
Result<Value> filter_items(const Value& input, const CallArgs& args, bool by_attribute, bool keep) {
  STRATA_ASSIGN_OR_RETURN(Value::List values, iterate(input));
  size_t test_index = by_attribute ? 1 : 0;
  std::string attr;
  if (by_attribute) {
    STRATA_ASSIGN_OR_RETURN(attr, args.string_at(0, "attribute", ""));
    if (attr.empty()) return Status::InvalidArgument("missing attribute name");
  }
  const Value* test = args.get(test_index, "");
  if (test != nullptr && !test->is_string()) return Status::InvalidArgument("the test name must be a string");
  CallArgs test_args;
  for (size_t i = test_index + 1; i < args.positional.size(); ++i) test_args.positional.push_back(args.positional[i]);
  Value::List out;
  for (const Value& item : values) {
    Value subject = by_attribute ? get_attr_path(item, attr) : item;
    bool passed = subject.truthy();
    if (test != nullptr) {
      STRATA_ASSIGN_OR_RETURN(passed, apply_test(test->as_string(), subject, test_args));
    }
    if (passed == keep) out.push_back(item);
  }
  return Value::MakeList(std::move(out));
}

Result<Value> selectattr(const Value& in, const CallArgs& a, const CallContext&) { return filter_items(in, a, true, true); }
Result<Value> rejectattr(const Value& in, const CallArgs& a, const CallContext&) { return filter_items(in, a, true, false); }
Result<Value> select(const Value& in, const CallArgs& a, const CallContext&) { return filter_items(in, a, false, true); }
Result<Value> reject(const Value& in, const CallArgs& a, const CallContext&) { return filter_items(in, a, false, false); }

// map(attribute='x', default=d) or map('filter', args...).
Result<Value> map(const Value& input, const CallArgs& args, const CallContext& ctx) {
  STRATA_ASSIGN_OR_RETURN(Value::List values, iterate(input));
  Value::List out;
  const Value* attr = args.get(CallArgs::kKeywordOnly, "attribute");
  if (attr != nullptr) {
    if (!attr->is_string()) return Status::InvalidArgument("attribute must be a string");
    const Value* fallback = args.get(CallArgs::kKeywordOnly, "default");
    for (const Value& item : values) {
      Value v = get_attr_path(item, attr->as_string());
      out.push_back(v.is_undefined() && fallback != nullptr ? *fallback : v);
    }
    return Value::MakeList(std::move(out));
  }
  if (args.positional.empty() || !args.positional[0].is_string()) {
    return Status::InvalidArgument("map needs a filter name or attribute=");
  }
  CallArgs filter_args;
  filter_args.positional.assign(args.positional.begin() + 1, args.positional.end());
  filter_args.named = args.named;
  for (const Value& item : values) {
    STRATA_ASSIGN_OR_RETURN(Value v, apply_filter(args.positional[0].as_string(), item, filter_args, ctx));
    out.push_back(std::move(v));
  }
  return Value::MakeList(std::move(out));
}

// The key sort/unique/min/max compare: the attribute if given, lowercased unless case_sensitive.
Result<Value> sort_key(const Value& item, const CallArgs& args, bool case_sensitive) {
  STRATA_ASSIGN_OR_RETURN(Value key, attribute_of(item, args, CallArgs::kKeywordOnly));
  if (!case_sensitive && key.is_string()) return Value::String(ascii_lower(key.as_string()));
  return key;
}

// Sorts (key, item) pairs stably; fails when two keys cannot be ordered.
Status sort_by_key(std::vector<std::pair<Value, Value>>* keyed, bool reverse) {
  bool incomparable = false;
  std::stable_sort(keyed->begin(), keyed->end(), [&](const auto& a, const auto& b) {
    int order = 0;
    if (!values_compare(a.first, b.first, &order)) incomparable = true;
    return reverse ? order > 0 : order < 0;
  });
  if (incomparable) return Status::InvalidArgument("cannot order the items: their types are not comparable");
  return Status::Ok();
}

Result<std::vector<std::pair<Value, Value>>> keyed_items(const Value& input, const CallArgs& args) {
  STRATA_ASSIGN_OR_RETURN(Value::List values, iterate(input));
  bool case_sensitive = args.bool_at(CallArgs::kKeywordOnly, "case_sensitive", false);
  std::vector<std::pair<Value, Value>> keyed;
  for (Value& item : values) {
    STRATA_ASSIGN_OR_RETURN(Value key, sort_key(item, args, case_sensitive));
    keyed.emplace_back(std::move(key), std::move(item));
  }
  return keyed;
}

Result<Value> sort(const Value& input, const CallArgs& args, const CallContext&) {
  STRATA_RETURN_IF_ERROR(args.check("sort", 3, {"reverse", "case_sensitive", "attribute"}));
  CallArgs keyed_args = args;
  if (args.positional.size() > 1) keyed_args.named.emplace_back("case_sensitive", args.positional[1]);
  if (args.positional.size() > 2) keyed_args.named.emplace_back("attribute", args.positional[2]);
  STRATA_ASSIGN_OR_RETURN(auto keyed, keyed_items(input, keyed_args));
  STRATA_RETURN_IF_ERROR(sort_by_key(&keyed, args.bool_at(0, "reverse", false)));
  Value::List out;
  for (auto& [key, item] : keyed) out.push_back(std::move(item));
  return Value::MakeList(std::move(out));
}

Result<Value> unique(const Value& input, const CallArgs& args, const CallContext&) {
  STRATA_RETURN_IF_ERROR(args.check("unique", 0, {"case_sensitive", "attribute"}));
  STRATA_ASSIGN_OR_RETURN(auto keyed, keyed_items(input, args));
  Value::List seen, out;
  for (auto& [key, item] : keyed) {
    bool dup = false;
    for (const Value& s : seen) dup = dup || values_equal(s, key);
    if (dup) continue;
    seen.push_back(key);
    out.push_back(item);
  }
  return Value::MakeList(std::move(out));
}

Result<Value> extreme(const Value& input, const CallArgs& args, bool want_max) {
  STRATA_RETURN_IF_ERROR(args.check(want_max ? "max" : "min", 0, {"case_sensitive", "attribute"}));
  STRATA_ASSIGN_OR_RETURN(auto keyed, keyed_items(input, args));
  if (keyed.empty()) return Value();
  STRATA_RETURN_IF_ERROR(sort_by_key(&keyed, want_max));
  return keyed.front().second;
}

Result<Value> min(const Value& in, const CallArgs& a, const CallContext&) { return extreme(in, a, false); }
Result<Value> max(const Value& in, const CallArgs& a, const CallContext&) { return extreme(in, a, true); }

Result<Value> sum(const Value& input, const CallArgs& args, const CallContext& ctx) {
  STRATA_RETURN_IF_ERROR(args.check("sum", 2, {"attribute", "start"}));
  STRATA_ASSIGN_OR_RETURN(Value::List values, iterate(input));
  const Value* start = args.get(1, "start");
  Value total = start != nullptr ? *start : Value::Int(0);
  for (const Value& item : values) {
    STRATA_ASSIGN_OR_RETURN(Value v, attribute_of(item, args, 0));
    STRATA_ASSIGN_OR_RETURN(total, binary_op("+", total, v, ctx));
  }
  return total;
}

Result<Value> dictsort(const Value& input, const CallArgs& args, const CallContext&) {
  STRATA_RETURN_IF_ERROR(args.check("dictsort", 3, {"case_sensitive", "by", "reverse"}));
  if (!input.is_dict()) return Status::InvalidArgument(std::string("dictsort needs a mapping, got ") + input.type_name());
  bool case_sensitive = args.bool_at(0, "case_sensitive", false);
  STRATA_ASSIGN_OR_RETURN(std::string by, args.string_at(1, "by", "key"));
  if (by != "key" && by != "value") return Status::InvalidArgument("dictsort: 'by' must be 'key' or 'value'");
  std::vector<std::pair<Value, Value>> keyed;
  for (const auto& [k, v] : input.as_dict().entries()) {
    Value key = by == "key" ? Dict::key_value(k) : v;
    if (!case_sensitive && key.is_string()) key = Value::String(ascii_lower(key.as_string()));
    keyed.emplace_back(std::move(key), Value::MakeTuple({Dict::key_value(k), v}));
  }
  STRATA_RETURN_IF_ERROR(sort_by_key(&keyed, args.bool_at(2, "reverse", false)));
  Value::List out;
  for (auto& [key, pair] : keyed) out.push_back(std::move(pair));
  return Value::MakeList(std::move(out));
}

struct NamedSequenceFilter {
  std::string_view name;
  FilterFn fn;
};

constexpr NamedSequenceFilter kSequenceFilters[] = {
    {"length", length},   {"first", first},       {"last", last},           {"list", list},
    {"reverse", reverse}, {"items", items},       {"join", join},           {"selectattr", selectattr},
    {"rejectattr", rejectattr}, {"select", select}, {"reject", reject},     {"map", map},
    {"sort", sort},       {"unique", unique},     {"min", min},             {"max", max},
    {"sum", sum},         {"dictsort", dictsort},
};

}  // namespace

FilterFn find_sequence_filter(std::string_view name) {
  for (const NamedSequenceFilter& f : kSequenceFilters) {
    if (f.name == name) return f.fn;
  }
  return nullptr;
}

}  // namespace strata::jinja
