// JSON schema -> GBNF grammar text (gbnf_parser.h) whose language is JSON documents valid
// under the schema, written compactly with bounded whitespace (at most 8 bytes at each place
// JSON allows it, so a weak model cannot loop on spaces).
//
// Supported keywords: type (one or a list), properties, required, additionalProperties (false,
// true or a schema; absent means false, as OpenAI's strict mode requires), items, prefixItems,
// minItems, maxItems, enum, const, anyOf, oneOf (as anyOf: exclusivity is not enforced), allOf
// of object schemas (merged), $ref to "#", "#/$defs/..." or "#/definitions/..." (recursion
// allowed), minLength, maxLength, minimum / maximum / exclusiveMinimum / exclusiveMaximum on
// integers and on numbers (number_range.h), pattern (see below), format date,
// date-time, time, uuid, email, hostname, ipv4 and uri. Annotations
// (title, description, default, examples, $schema, $id, $comment, deprecated, readOnly,
// writeOnly, strict) are ignored. Any other keyword is an error naming it and where it is.
//
// Object properties are written in the schema's order (the order of its `properties` object,
// which is why schemas are nlohmann::ordered_json: nlohmann::json would sort them by name; an
// allOf gives the parts' properties in part order), required ones always, optional ones when
// the model chooses; extra properties (when allowed) come after them. Clients put properties in
// the order they want them written (OpenAI's structured outputs keep it too), e.g. a
// "reasoning" before the "answer" it leads to. Numbers have at most 16 integer and 16 fraction
// digits.
//
// Lookups in an ordered object are linear in its size, so `$ref` paths are followed through a
// hash index of each object they pass (built once per compile) and allOf properties are merged
// through one: a schema with thousands of definitions or properties compiles in time near
// linear in its size.
//
// pattern: the regular expression must match the whole string (a leading ^ and trailing $
// are optional). Supported: literals and escapes (\. \\ \/ ...), ., character classes with
// ranges and negation, \d \w \s (and inside classes), groups ( ) and (?: ), alternation |,
// and the quantifiers * + ? {m} {m,} {m,n}. Back-references, lookaround and other anchors are
// errors. Characters JSON must escape (" and \) are written escaped; control characters are
// never produced.
//
// Stateless; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace strata::grammar {

using SchemaJson = nlohmann::ordered_json;

Result<std::string> json_schema_to_gbnf(const SchemaJson& schema);

// The same in pieces, for grammars that embed several schemas (forced tool calls): a GBNF
// expression for the schema and the rules it uses, named with prefix so that schemas compiled
// with different prefixes can share one grammar; the primitive rules (primitive_gbnf_rules in
// schema_pieces.h, included once by the caller) are not part of rules.
struct SchemaGbnf {
  std::string expr;
  std::string rules;
};
Result<SchemaGbnf> json_schema_rules(const SchemaJson& schema, const std::string& prefix);

// The GBNF rules for any JSON value (root ::= value), shared by json_object mode.
std::string any_json_gbnf();

// Integer range as a GBNF expression over decimal text; lo/hi absent when unbounded.
// Exposed for tests.
std::string integer_range_gbnf(const long long* lo, const long long* hi);

}  // namespace strata::grammar
