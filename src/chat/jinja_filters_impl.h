// Internal to the chat module: the filter tables jinja_filters.cc dispatches to, one per
// family (text filters in jinja_filters_text.cc, sequence filters in jinja_filters_seq.cc).
#pragma once

#include <string_view>

#include "base/status.h"
#include "chat/jinja_args.h"
#include "chat/jinja_value.h"

namespace strata::jinja {

using FilterFn = Result<Value> (*)(const Value& input, const CallArgs& args, const CallContext& ctx);

// nullptr when the family has no filter of that name.
FilterFn find_text_filter(std::string_view name);
FilterFn find_sequence_filter(std::string_view name);

}  // namespace strata::jinja
