// Tool calls written as one JSON array of call objects between a model's markers (Cohere's
// <|START_ACTION|>...<|END_ACTION|>, Nemotron Nano 2's <TOOLCALL>...</TOOLCALL>): each object names
// its tool under one key and holds its arguments under another.
#pragma once

#include <string_view>
#include <vector>

#include "server/tool_call_parser.h"

namespace strata::server {

// The keys of a call object: the tool's name, and its arguments (an object, or a string holding
// one; absent or null: none).
struct JsonCallKeys {
  std::string_view name;
  std::string_view arguments;
};

// The calls of one block's body appended to *out, without ids (the response gives each its own);
// false, *out untouched, when the body is anything else: not JSON, not a non-empty array of
// objects, a call without a non-empty name string, arguments neither an object, a string nor
// null. Never throws.
bool parse_json_call_array(std::string_view body, JsonCallKeys keys, std::vector<ParsedToolCall>* out);

}  // namespace strata::server
