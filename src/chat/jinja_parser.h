// The Jinja parser: turns template source into a Template tree (see jinja_ast.h).
// Covers the statements chat templates use (if/elif/else, for with loop filters and else,
// set, block set, namespace attribute set, macro, filter blocks, break/continue, raw,
// generation); include/extends/import and other tags are rejected with a clear error.
// Stateless; safe from any thread.
#pragma once

#include <memory>
#include <string_view>

#include "base/status.h"
#include "chat/jinja_ast.h"
#include "chat/jinja_lexer.h"

namespace strata::jinja {

// Deeper nesting of blocks or expressions than this is refused, so hostile templates cannot
// exhaust the stack while parsing or rendering.
inline constexpr int kMaxNestingDepth = 128;

// Errors name the line and column and what is wrong ("unclosed 'for' block", "unexpected ')'").
Result<std::unique_ptr<Template>> parse(std::string_view source, const LexOptions& options = {});

}  // namespace strata::jinja
