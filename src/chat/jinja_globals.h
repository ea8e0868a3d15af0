// Global functions every template can call: range, namespace, dict (Jinja's own), and the
// two Hugging Face adds: raise_exception(message), which fails the render with that message,
// and strftime_now(format), which formats the render's clock in local time. Stateless.
#pragma once

#include <string_view>

#include "base/status.h"
#include "chat/jinja_args.h"
#include "chat/jinja_value.h"

namespace strata::jinja {

bool is_global_function(std::string_view name);

Result<Value> call_global(std::string_view name, const CallArgs& args, const CallContext& ctx);

}  // namespace strata::jinja
