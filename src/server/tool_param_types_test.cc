// ToolParamTypes: the types offered tools' parameters take, read from their schemas, and the
// values argument text becomes by them.
#include "server/tool_param_types.h"

#include <gtest/gtest.h>

namespace strata::server {
namespace {

using nlohmann::json;
using Types = ToolParamTypes;

// One tool "f" with these properties (and these $defs, for $ref).
Types types_of(const std::string& properties, const std::string& defs = "{}") {
  return Types(json::parse(R"([{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
      "properties": )" + properties + R"(, "$defs": )" + defs + "}}}]"));
}

TEST(ToolParamTypes, TypeNamesAndListsOfThem) {
  const Types types = types_of(R"({"s": {"type": "string"}, "i": {"type": "integer"}, "n": {"type": "number"},
      "b": {"type": "boolean"}, "o": {"type": "object"}, "a": {"type": "array"}, "z": {"type": "null"},
      "l": {"type": ["integer", "null"]}, "u": {"type": "date"}, "d": {"description": "no type"}})");
  EXPECT_EQ(types.kinds("f", "s"), Types::kKindString);
  EXPECT_EQ(types.kinds("f", "i"), Types::kKindInteger);
  EXPECT_EQ(types.kinds("f", "n"), Types::kKindNumber);
  EXPECT_EQ(types.kinds("f", "b"), Types::kKindBoolean);
  EXPECT_EQ(types.kinds("f", "o"), Types::kKindObject);
  EXPECT_EQ(types.kinds("f", "a"), Types::kKindArray);
  EXPECT_EQ(types.kinds("f", "z"), Types::kKindNull);
  EXPECT_EQ(types.kinds("f", "l"), Types::kKindInteger | Types::kKindNull);
  EXPECT_EQ(types.kinds("f", "u"), 0);
  EXPECT_EQ(types.kinds("f", "d"), 0);
  EXPECT_EQ(types.kinds("f", "missing"), 0);
  EXPECT_EQ(types.kinds("g", "s"), 0);
}

TEST(ToolParamTypes, AnyOfOneOfEnumAndConstGiveTheirMembersTypes) {
  const Types types = types_of(R"({"any": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
      "one": {"oneOf": [{"type": "object"}, {"type": "null"}]}, "e": {"enum": [1, 2, 3]},
      "mixed": {"enum": ["a", true]}, "c": {"const": 1.5}})");
  EXPECT_EQ(types.kinds("f", "any"), Types::kKindInteger | Types::kKindString);
  EXPECT_EQ(types.kinds("f", "one"), Types::kKindObject | Types::kKindNull);
  EXPECT_EQ(types.kinds("f", "e"), Types::kKindInteger);
  EXPECT_EQ(types.kinds("f", "mixed"), Types::kKindString | Types::kKindBoolean);
  EXPECT_EQ(types.kinds("f", "c"), Types::kKindNumber);
}

TEST(ToolParamTypes, LocalRefsAreFollowedWithinTheToolsParameters) {
  const Types types = types_of(R"({"r": {"$ref": "#/$defs/Point"}, "esc": {"$ref": "#/$defs/a~1b"},
      "loop": {"$ref": "#/properties/loop"}, "self": {"$ref": "#"}, "gone": {"$ref": "#/$defs/None"},
      "remote": {"$ref": "http://example.com/s.json"}})",
                           R"({"Point": {"type": "object"}, "a/b": {"anyOf": [{"$ref": "#/$defs/Point"}]}})");
  EXPECT_EQ(types.kinds("f", "r"), Types::kKindObject);
  EXPECT_EQ(types.kinds("f", "esc"), Types::kKindObject);
  EXPECT_EQ(types.kinds("f", "loop"), 0);  // a cycle ends at the depth bound
  EXPECT_EQ(types.kinds("f", "self"), Types::kKindObject);
  EXPECT_EQ(types.kinds("f", "gone"), 0);
  EXPECT_EQ(types.kinds("f", "remote"), 0);
}

TEST(ToolParamTypes, MalformedToolsAreNoTools) {
  for (const char* tools : {"null", "{}", "[1, {}]", R"([{"function": 1}])", R"([{"function": {"name": 1}}])",
                            R"([{"function": {"name": "f", "parameters": []}}])",
                            R"([{"function": {"name": "f", "parameters": {"properties": [1]}}}])"}) {
    const Types types{json::parse(tools)};
    EXPECT_EQ(types.typed_argument("f", "a", "1"), "1") << tools;
  }
}

TEST(ToolParamTypes, ArgumentsBecomeValuesOfTheirTypeOrStayText) {
  const Types types = types_of(R"({"i": {"type": "integer"}, "n": {"type": "number"}, "b": {"type": "boolean"},
      "o": {"type": "object"}, "s": {"type": "string"}, "in": {"type": ["integer", "null"]}})");
  EXPECT_EQ(types.typed_argument("f", "i", " 42 "), 42);
  EXPECT_EQ(types.typed_argument("f", "i", "4.5"), "4.5");
  EXPECT_EQ(types.typed_argument("f", "n", "-4.5e1"), -45.0);
  EXPECT_EQ(types.typed_argument("f", "n", "NaN"), "NaN");
  EXPECT_EQ(types.typed_argument("f", "b", "true"), true);
  EXPECT_EQ(types.typed_argument("f", "b", "False"), false);
  EXPECT_EQ(types.typed_argument("f", "b", "yes"), "yes");
  EXPECT_EQ(types.typed_argument("f", "o", R"({"k": [1]})"), nlohmann::ordered_json::parse(R"({"k": [1]})"));
  EXPECT_EQ(types.typed_argument("f", "o", R"("text")"), R"("text")");
  EXPECT_EQ(types.typed_argument("f", "s", "{}"), "{}");
  EXPECT_EQ(types.typed_argument("f", "in", "None"), nullptr);
  EXPECT_EQ(types.typed_argument("f", "in", "null"), nullptr);
  EXPECT_EQ(types.typed_argument("f", "in", "7"), 7);
  EXPECT_EQ(types.typed_argument("f", "i", "\xff"), "\xff");  // kept byte for byte (dumped with replacement)
}

}  // namespace
}  // namespace strata::server
