// Python methods templates call on values: str (strip, lstrip, rstrip, startswith, endswith,
// split, splitlines, upper, lower, title, capitalize, replace, find, count, join, isdigit,
// isalpha, isalnum, isspace, islower, isupper), dict (get, items, keys, values) and list (append,
// pop). append() and pop() change a list the template built itself, in place, as jinja2's
// SandboxedEnvironment and llama.cpp's minja let templates do (Kimi K2's queue call ids in a
// `namespace(ids=[])`); the lists a render is given (Value::MakeInputList) and tuples are refused
// them, as are every other mutating method (extend, insert, update...) on any value: templates
// never modify their inputs, as in Hugging Face's immutable sandbox. A list grows to at most
// kMaxListItems. Stateless apart from the list it is called on; thread-safe across renders.
#pragma once

#include <string_view>

#include "base/status.h"
#include "chat/jinja_args.h"
#include "chat/jinja_value.h"

namespace strata::jinja {

// Whether `obj.name(...)` is a method call this module handles (including refused mutators).
bool has_method(const Value& obj, std::string_view name);

Result<Value> call_method(const Value& obj, std::string_view name, const CallArgs& args, const CallContext& ctx);

}  // namespace strata::jinja
