#include "server/tool_param_types.h"

#include <algorithm>
#include <utility>

#include "server/tool_call_text.h"

namespace strata::server {

namespace {

using nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// How deep a schema's anyOf / oneOf / $ref chain is followed: enough for real schemas, and a
// bound on recursive or hostile ones.
constexpr int kMaxParamSchemaDepth = 8;

uint8_t kind_of_type_name(const json& name) {
  if (!name.is_string()) return 0;
  const std::string& type = name.get_ref<const std::string&>();
  if (type == "string") return ToolParamTypes::kKindString;
  if (type == "integer") return ToolParamTypes::kKindInteger;
  if (type == "number") return ToolParamTypes::kKindNumber;
  if (type == "boolean") return ToolParamTypes::kKindBoolean;
  if (type == "object") return ToolParamTypes::kKindObject;
  if (type == "array") return ToolParamTypes::kKindArray;
  if (type == "null") return ToolParamTypes::kKindNull;
  return 0;
}

uint8_t kind_of_value(const json& value) {
  if (value.is_string()) return ToolParamTypes::kKindString;
  if (value.is_number_integer()) return ToolParamTypes::kKindInteger;
  if (value.is_number()) return ToolParamTypes::kKindNumber;
  if (value.is_boolean()) return ToolParamTypes::kKindBoolean;
  if (value.is_object()) return ToolParamTypes::kKindObject;
  if (value.is_array()) return ToolParamTypes::kKindArray;
  return ToolParamTypes::kKindNull;
}

// The schema a local "$ref" ("#/a/b", JSON-pointer escapes ~0 and ~1) names inside root, or
// nullptr when it names nothing there.
const json* resolve_local_ref(const json& root, const std::string& ref) {
  if (!ref.starts_with("#")) return nullptr;
  const json* at = &root;
  std::string_view rest = std::string_view(ref).substr(1);
  while (!rest.empty()) {
    if (rest.front() != '/' || !at->is_object()) return nullptr;
    rest.remove_prefix(1);
    const size_t end = std::min(rest.find('/'), rest.size());
    std::string key;
    for (size_t i = 0; i < end; ++i) {
      const bool escape = rest[i] == '~' && i + 1 < end && (rest[i + 1] == '0' || rest[i + 1] == '1');
      key += escape ? (rest[i + 1] == '0' ? '~' : '/') : rest[i];
      i += escape ? 1 : 0;
    }
    const auto next = at->find(key);
    if (next == at->end()) return nullptr;
    at = &*next;
    rest.remove_prefix(end);
  }
  return at;
}

// The kinds one schema allows (see the header), root being the tool's parameters schema.
uint8_t schema_kinds(const json& schema, const json& root, int depth) {
  if (!schema.is_object() || depth > kMaxParamSchemaDepth) return 0;
  if (const auto ref = schema.find("$ref"); ref != schema.end() && ref->is_string()) {
    const json* target = resolve_local_ref(root, ref->get<std::string>());
    return target ? schema_kinds(*target, root, depth + 1) : 0;
  }
  uint8_t kinds = 0;
  if (const auto type = schema.find("type"); type != schema.end()) {
    if (type->is_array()) {
      for (const json& name : *type) kinds |= kind_of_type_name(name);
    } else {
      kinds = kind_of_type_name(*type);
    }
    if (kinds != 0) return kinds;
  }
  for (const char* key : {"anyOf", "oneOf"}) {
    const auto members = schema.find(key);
    if (members == schema.end() || !members->is_array()) continue;
    for (const json& member : *members) kinds |= schema_kinds(member, root, depth + 1);
  }
  if (kinds != 0) return kinds;
  if (const auto values = schema.find("enum"); values != schema.end() && values->is_array()) {
    for (const json& value : *values) kinds |= kind_of_value(value);
  }
  if (const auto value = schema.find("const"); value != schema.end()) kinds |= kind_of_value(*value);
  return kinds;
}

// True when value is of one of kinds (a number written as an integer also fits "number").
bool value_fits(const OrderedJson& value, uint8_t kinds) {
  if (value.is_number_integer() && (kinds & ToolParamTypes::kKindInteger)) return true;
  if (value.is_number() && (kinds & ToolParamTypes::kKindNumber)) return true;
  if (value.is_boolean()) return kinds & ToolParamTypes::kKindBoolean;
  if (value.is_object()) return kinds & ToolParamTypes::kKindObject;
  if (value.is_array()) return kinds & ToolParamTypes::kKindArray;
  if (value.is_null()) return kinds & ToolParamTypes::kKindNull;
  return false;
}

}  // namespace

ToolParamTypes::ToolParamTypes(const json& tools) {
  if (!tools.is_array()) return;
  for (const json& tool : tools) {
    if (!tool.is_object()) continue;
    const auto found = tool.find("function");
    if (found == tool.end() || !found->is_object()) continue;
    const json* function = &*found;
    const auto name = function->find("name");
    const auto parameters = function->find("parameters");
    if (name == function->end() || !name->is_string() || parameters == function->end()) continue;
    const auto properties = parameters->is_object() ? parameters->find("properties") : parameters->end();
    if (properties == parameters->end() || !properties->is_object()) continue;
    auto& params = kinds_[name->get<std::string>()];
    for (const auto& [param, schema] : properties->items()) params[param] = schema_kinds(schema, *parameters, 0);
  }
}

uint8_t ToolParamTypes::kinds(std::string_view tool, std::string_view param) const {
  const auto params = kinds_.find(tool);
  if (params == kinds_.end()) return 0;
  const auto kinds = params->second.find(param);
  return kinds == params->second.end() ? 0 : kinds->second;
}

OrderedJson ToolParamTypes::typed_argument(std::string_view tool, std::string_view param, std::string_view text) const {
  const uint8_t typed = kinds(tool, param) & ~kKindString;
  if (typed == 0) return OrderedJson(std::string(text));
  OrderedJson value = OrderedJson::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!value.is_discarded() && value_fits(value, typed)) return value;
  const std::string_view word = trim_markup_space(text);
  if ((typed & kKindBoolean) && (word == "True" || word == "False")) return OrderedJson(word == "True");
  if ((typed & kKindNull) && word == "None") return OrderedJson(nullptr);
  return OrderedJson(std::string(text));
}

}  // namespace strata::server
