// Renders a parsed Template against a context of variables. Each call builds its own state,
// so one Template may be rendered from many threads at once.
//
// A render always ends: output size, evaluation steps, nesting depth and macro recursion are
// bounded, and exceeding a bound is an error like any other (a Status naming the line and
// column of the node that failed), never a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "chat/jinja_ast.h"
#include "chat/jinja_value.h"

namespace strata::jinja {

struct RenderLimits {
  size_t max_output_bytes = size_t{16} << 20;  // also bounds any single string a template builds
  int64_t max_steps = 5'000'000;               // statements and expressions evaluated
  int max_depth = 1000;                        // nested evaluation (bounds stack use)
  int max_call_depth = 64;                     // nested macro calls
};

struct RenderOptions {
  RenderLimits limits;
  int64_t now_s = 0;  // what strftime_now() formats (seconds since the epoch)
};

// `context` holds the template's variables (messages, add_generation_prompt, ...).
Result<std::string> render(const Template& tmpl, const Dict& context, const RenderOptions& options);

}  // namespace strata::jinja
