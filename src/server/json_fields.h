// Typed, range-checked reads of optional fields from a JSON request object (a RequestJson, whose
// objects keep the client's key order: request_json.h).
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
#include "server/request_json.h"

namespace strata::server {

// Responses are built as nlohmann::json (keys sorted); requests are read as RequestJson.
using nlohmann::json;

// Parses a request body in time linear in its size (parse_ordered_json). Errors name the byte
// offset and say a JSON object was expected; an object with more than kMaxObjectKeys members is
// refused naming it and the limit.
Result<RequestJson> parse_json_object(std::string_view body);

// The field's value, or nullptr when absent or null.
const RequestJson* find_field(const RequestJson& object, std::string_view name);

// The field's string value; "" when object is not an object or the field is absent or not a
// string (for tags such as a content part's "type", where anything else is simply unknown).
std::string string_or_empty(const RequestJson& object, std::string_view name);

// A short rendering of a received value for error messages (truncated).
std::string describe_value(const RequestJson& value);

Status read_float(const RequestJson& object, std::string_view name, double lo, double hi, float* out);
Status read_int(const RequestJson& object, std::string_view name, int64_t lo, int64_t hi, int* out);
Status read_uint64(const RequestJson& object, std::string_view name, uint64_t* out);
Status read_bool(const RequestJson& object, std::string_view name, bool* out);
Status read_string(const RequestJson& object, std::string_view name, std::string* out);
// A string or an array of up to max_items non-empty strings (OpenAI "stop", Anthropic
// "stop_sequences").
Status read_string_list(const RequestJson& object, std::string_view name, size_t max_items,
                        std::vector<std::string>* out);
// Fields this server does not implement: accepted when absent, null, false or an empty
// string/array/object (clients often send those), else kUnsupported naming the field.
Status reject_if_set(const RequestJson& object, std::string_view name);

}  // namespace strata::server
