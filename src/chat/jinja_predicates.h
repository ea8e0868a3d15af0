// Jinja tests, the predicates behind `x is name(args)`: defined, undefined, none, boolean,
// true, false, integer, float, number, string, mapping, sequence, iterable, callable, sameas,
// eq/ne/lt/le/gt/ge (and their operator spellings), in, odd, even, divisibleby, lower, upper.
// Stateless; thread-safe.
#pragma once

#include <string_view>

#include "base/status.h"
#include "chat/jinja_args.h"
#include "chat/jinja_value.h"

namespace strata::jinja {

bool is_known_test(std::string_view name);

// Fails for an unknown test or bad arguments; `is not` negation is the caller's.
Result<bool> apply_test(std::string_view name, const Value& value, const CallArgs& args);

}  // namespace strata::jinja
