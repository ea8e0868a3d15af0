// ToolParamTypes: the JSON types the parameters of a request's offered tools take, read once
// from their schemas, so that arguments a model writes as bare text (Qwen3-Coder's
// `<parameter=NAME>` values: tool_call_xml.h) come back as the values the schema asks for.
//
// The tools are in OpenAI's form, [{"type": "function", "function": {"name", "parameters"}}]
// (what PromptInput::tools holds for both APIs). A parameter's types are its schema's `type`
// (a name or a list of names), else the types of its `anyOf` / `oneOf` members, else the kinds
// of its `enum` / `const` values; a local `$ref` ("#/$defs/X", "#/definitions/X", ...) within the
// tool's parameters is followed first. Anything else (no such tool or parameter, a schema without
// types) is untyped.
//
// A plain value: immutable after construction, cheap enough to copy per request, safe to read
// from several threads.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace strata::server {

class ToolParamTypes {
 public:
  ToolParamTypes() = default;  // no tools known: every argument is a string
  // tools: an array of OpenAI function tools; anything else (null) is no tools. Never throws.
  explicit ToolParamTypes(const nlohmann::json& tools);

  // An argument's text as the value its parameter's schema types it: when the schema allows
  // integer, number, boolean, object, array or null, the text parsed as JSON if it is a value of
  // one of those kinds (whitespace around it allowed); for boolean also `True` / `False`, and for
  // null `None`, which is how the chat templates of these models (Python's str) write those values
  // back into the prompt. Otherwise, and for strings and untyped parameters, the text as a JSON
  // string, exactly as written. Never throws.
  nlohmann::ordered_json typed_argument(std::string_view tool, std::string_view param, std::string_view text) const;

  // The kinds a parameter may take (a bit set of kKind* values; 0 when untyped).
  uint8_t kinds(std::string_view tool, std::string_view param) const;

  static constexpr uint8_t kKindString = 1;
  static constexpr uint8_t kKindInteger = 2;
  static constexpr uint8_t kKindNumber = 4;
  static constexpr uint8_t kKindBoolean = 8;
  static constexpr uint8_t kKindObject = 16;
  static constexpr uint8_t kKindArray = 32;
  static constexpr uint8_t kKindNull = 64;

 private:
  // tool name -> parameter name -> kinds
  std::map<std::string, std::map<std::string, uint8_t, std::less<>>, std::less<>> kinds_;
};

}  // namespace strata::server
