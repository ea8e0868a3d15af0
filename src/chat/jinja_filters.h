// Jinja filters (`value | name(args)`) with Jinja2's semantics as Hugging Face configures it
// (its own tojson: json.dumps with ensure_ascii off). Text: trim, upper, lower, capitalize,
// title, replace, string, safe, escape/e, int, float, abs, round, tojson, default/d, indent.
// Sequences: length/count, first, last, join, list, items, selectattr, rejectattr, select,
// reject, map, reverse, sort, unique, min, max, sum, dictsort. Stateless; thread-safe.
#pragma once

#include <string_view>

#include "base/status.h"
#include "chat/jinja_args.h"
#include "chat/jinja_value.h"

namespace strata::jinja {

bool is_known_filter(std::string_view name);

// Fails for an unknown filter, bad arguments, or output beyond ctx.max_bytes.
Result<Value> apply_filter(std::string_view name, const Value& input, const CallArgs& args, const CallContext& ctx);

}  // namespace strata::jinja
