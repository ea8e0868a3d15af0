// Python methods templates call on values: str (strip, lstrip, rstrip, startswith, endswith,
// split, splitlines, upper, lower, title, capitalize, replace, find, count, join, isdigit,
// isalpha, isalnum, isspace, islower, isupper) and dict (get, items, keys, values).
// Mutating methods (append, pop, update...) are refused: templates only read their inputs, as
// in Hugging Face's immutable sandbox. Stateless; thread-safe.
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
