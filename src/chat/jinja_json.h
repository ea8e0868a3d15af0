// Conversions between template Values and JSON: request data (messages, tools) enters the
// template as Values, its objects' keys in their JSON order, and the `tojson` filter prints
// Values exactly as Hugging Face's tojson does, i.e. Python's json.dumps(ensure_ascii=False):
// ", " and ": " separators (",", ": " with an indent), non-ASCII text unescaped, floats in repr
// form. Stateless; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "base/status.h"
#include "chat/jinja_value.h"

namespace strata::jinja {

// JSON nested deeper than this is refused rather than converted recursively.
inline constexpr int kMaxJsonDepth = 256;

// An input of the render: its lists are read-only (Value::MakeInputList). A dict holds its
// object's keys in the object's order: sorted from nlohmann::json, as inserted (a client's
// order, for request data) from nlohmann::ordered_json. Linear in the value's size.
Result<Value> value_from_json(const nlohmann::json& json);
Result<Value> value_from_json(const nlohmann::ordered_json& json);

// indent < 0: one line. Fails for undefined, namespaces and functions, as json.dumps would,
// and when the text would exceed max_bytes.
Result<std::string> value_to_json(const Value& value, int indent, bool sort_keys, size_t max_bytes);

}  // namespace strata::jinja
