// GBNF: the grammar text format of llama.cpp, parsed into a Grammar.
//
//   root   ::= "{" ws pair ("," ws pair)* "}"     # comments run to the end of the line
//   pair   ::= [a-z]+ ":" ws ( "true" | "false" )
//   ws     ::= [ \t\n]{0,4}
//
// Supported: rule definitions (`name ::= ...`, a name of letters, digits, '-' and '_'; a rule
// goes on over following lines until the next definition), alternatives `|`, groups `( )`,
// string literals with escapes (\n \r \t \\ \" \' \[ \] \xHH \uHHHH \UHHHHHHHH), character
// classes over code points (`[a-z]`, `[^"\\]`), `.` (any character), and the postfix operators
// `*` `+` `?` `{m}` `{m,}` `{m,n}`. A rule named `root` is required. Errors name the line and
// column. Left-recursive rules are rejected (see grammar.h).
//
// Stateless; thread-safe.
#pragma once

#include <string_view>

#include "base/status.h"
#include "grammar/grammar.h"

namespace strata::grammar {

Result<Grammar> parse_gbnf(std::string_view text);

}  // namespace strata::grammar
