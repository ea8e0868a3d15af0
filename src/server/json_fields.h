// Typed, range-checked reads of optional fields from a JSON request object.
//
// Stateless free functions. Each reader leaves *out untouched when the field is absent or
// null, and otherwise returns kInvalidArgument naming the field, the expected type/range
// and what was sent (e.g. "'temperature' must be a number in [0, 2], got \"hot\"").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace strata::server {

using nlohmann::json;

// Parses a request body. Errors name the byte offset and say a JSON object was expected.
Result<json> parse_json_object(std::string_view body);

// The field's value, or nullptr when absent or null.
const json* find_field(const json& object, std::string_view name);

// The field's string value; "" when object is not an object or the field is absent or not a
// string (for tags such as a content part's "type", where anything else is simply unknown).
std::string string_or_empty(const json& object, std::string_view name);

// A short rendering of a received value for error messages (truncated).
std::string describe_value(const json& value);

Status read_float(const json& object, std::string_view name, double lo, double hi, float* out);
Status read_int(const json& object, std::string_view name, int64_t lo, int64_t hi, int* out);
Status read_uint64(const json& object, std::string_view name, uint64_t* out);
Status read_bool(const json& object, std::string_view name, bool* out);
Status read_string(const json& object, std::string_view name, std::string* out);
// A string or an array of up to max_items non-empty strings (OpenAI "stop", Anthropic
// "stop_sequences").
Status read_string_list(const json& object, std::string_view name, size_t max_items,
                        std::vector<std::string>* out);
// Fields this server does not implement: accepted when absent, null, false or an empty
// string/array/object (clients often send those), else kUnsupported naming the field.
Status reject_if_set(const json& object, std::string_view name);

}  // namespace strata::server
