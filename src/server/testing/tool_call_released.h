// Test support: what a ToolCallParser releases for an output fed a few bytes at a time, as one
// string the parser tests compare. Stateless; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "server/tool_call_syntax.h"

namespace strata::server::testing {

// output fed to a parser of format n_bytes at a time, then finish(): its calls in order as
// "[name arguments_json]" (with " #id" before the "]" when the model wrote an id), then its text,
// trimmed of spaces and newlines when there are calls.
std::string released_by_parser(const ToolCallFormat& format, std::string_view output, size_t n_bytes);

}  // namespace strata::server::testing
