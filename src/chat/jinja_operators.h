// Jinja's operators with Python semantics: int/float promotion, floor division and modulo,
// str/list concatenation and repetition, comparisons and `in`. Pure functions; errors carry
// Python-like messages ("unsupported operand type(s) for +: 'str' and 'int'") without a
// location, which the renderer adds.
#pragma once

#include <optional>
#include <string_view>

#include "base/status.h"
#include "chat/jinja_args.h"
#include "chat/jinja_value.h"

namespace strata::jinja {

// op is one of + - * / // % ** ~
Result<Value> binary_op(std::string_view op, const Value& a, const Value& b, const CallContext& ctx);
// op is "-" or "+"; `not` is handled by the renderer.
Result<Value> unary_op(std::string_view op, const Value& a);
// op is one of == != < > <= >= in, not in
Result<bool> compare_op(std::string_view op, const Value& a, const Value& b);
// Python's `item in container` for str (substring), list (equality) and dict (key).
Result<bool> contains(const Value& container, const Value& item);

// str.replace(from, to, count) that refuses, before building it, a result beyond ctx.max_bytes.
Result<Value> bounded_replace(std::string_view s, std::string_view from, std::string_view to, int64_t count,
                              const CallContext& ctx);

// The items a for loop or a sequence filter visits: a list's items, a string's characters,
// a dict's keys; undefined iterates as empty. Fails for other types ("'int' object is not iterable").
Result<Value::List> iterate(const Value& v);

// obj.name for dicts and namespaces; undefined when absent (Jinja defers the error to use).
Value get_attr(const Value& obj, std::string_view name);
// obj[key]: dict by string key, list and string (by code point) by int index, negative
// indexes counting from the end; undefined when absent or out of range.
Value get_item(const Value& obj, const Value& key);
// obj[start:stop:step] on a list or a string (by code point), with Python's bounds rules.
Result<Value> slice(const Value& obj, std::optional<int64_t> start, std::optional<int64_t> stop,
                    std::optional<int64_t> step);
// A dotted path as the `attribute=` argument of filters takes: "function.name", "0.x".
Value get_attr_path(const Value& obj, std::string_view path);

}  // namespace strata::jinja
