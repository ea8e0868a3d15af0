// Pieces of GBNF text the JSON-schema compiler puts together: the primitive JSON rules,
// integer ranges, string formats and regular-expression patterns. Used by json_schema.cc and
// by grammars that embed schemas (the server's forced tool calls).
//
// Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace strata::grammar {

// Rules every schema grammar may use: ws, string, char, number, integer, boolean, null,
// value, object, array (any JSON value).
std::string primitive_gbnf_rules();

// Integer and fraction digits of the numbers schema grammars write (the `number` rule's too).
inline constexpr int kMaxNumberDigits = 16;

// "(a | b | ...)": GBNF alternatives; "\"\"" (the empty string) when there are none.
std::string gbnf_alternatives(const std::vector<std::string>& alternatives);

// A GBNF string literal spelling text exactly ("\"a\\\"b\"" for a"b).
std::string gbnf_literal(std::string_view text);

// The content of a JSON string (between its quotes) with min..max characters (max < 0: any).
std::string string_length_gbnf(int min, int max);

// A JSON string in the named format (date, date-time, time, uuid, email, hostname, ipv4, uri: a
// subset of each format's valid strings, so every output validates), quotes included; an error
// for other formats.
Result<std::string> string_format_gbnf(std::string_view format);

// A JSON string whose content matches the regular expression as a whole, quotes included.
Result<std::string> pattern_gbnf(std::string_view pattern);

}  // namespace strata::grammar
