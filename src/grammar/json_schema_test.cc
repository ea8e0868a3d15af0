#include "grammar/json_schema.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "grammar/gbnf_parser.h"
#include "grammar/grammar_matcher.h"

namespace strata::grammar {
namespace {

using json = SchemaJson;

class SchemaMatcher {
 public:
  explicit SchemaMatcher(const std::string& schema) {
    Result<std::string> gbnf = json_schema_to_gbnf(json::parse(schema));
    EXPECT_TRUE(gbnf.ok()) << gbnf.status().ToString();
    Result<Grammar> g = parse_gbnf(*gbnf);
    EXPECT_TRUE(g.ok()) << g.status().ToString() << "\n" << *gbnf;
    compiled_ = *CompiledGrammar::Compile(*g);
  }
  bool matches(const std::string& text) const {
    GrammarMatcher m(compiled_);
    return m.accept(text) && m.accepting();
  }

 private:
  std::shared_ptr<const CompiledGrammar> compiled_;
};

std::string schema_error_of(const std::string& schema) {
  Result<std::string> gbnf = json_schema_to_gbnf(json::parse(schema));
  return gbnf.ok() ? "" : std::string(gbnf.status().message());
}

TEST(JsonSchema, ObjectsHaveRequiredAndOptionalPropertiesInTheSchemasOrder) {
  SchemaMatcher s(R"({"type": "object", "properties": {"c": {"type": "boolean"}, "a": {"type": "integer"},
      "b": {"type": "string"}}, "required": ["b"]})");
  EXPECT_TRUE(s.matches(R"({"b": "x"})"));
  EXPECT_TRUE(s.matches(R"({"c": true, "a": -3, "b": "x"})"));
  EXPECT_TRUE(s.matches(R"({"a": -3, "b": "x"})"));
  EXPECT_TRUE(s.matches("{\n  \"a\": 0,\n  \"b\": \"\"\n}"));
  EXPECT_FALSE(s.matches(R"({"a": -3, "b": "x", "c": true})"));
  EXPECT_FALSE(s.matches(R"({"b": "x", "a": -3})"));
  EXPECT_FALSE(s.matches(R"({"a": 1})"));
  EXPECT_FALSE(s.matches(R"({"b": "x", "d": 1})"));
  EXPECT_FALSE(s.matches(R"({"b": "x",})"));
  EXPECT_FALSE(s.matches(R"({"a": 01, "b": "x"})"));
}

// The order a client gives is the order a model writes, so a field meant to come first (a
// "reasoning" before the "answer" it leads to) does.
TEST(JsonSchema, ReasoningDeclaredFirstIsWrittenFirst) {
  SchemaMatcher s(R"({"type": "object", "properties": {"reasoning": {"type": "string"},
      "answer": {"type": "integer"}}, "required": ["reasoning", "answer"]})");
  EXPECT_TRUE(s.matches(R"({"reasoning": "2 and 2", "answer": 4})"));
  EXPECT_FALSE(s.matches(R"({"answer": 4, "reasoning": "2 and 2"})"));
}

TEST(JsonSchema, AdditionalPropertiesFollowTheNamedOnes) {
  SchemaMatcher s(R"({"type": "object", "properties": {"a": {"type": "null"}}, "additionalProperties": {"type": "number"}})");
  EXPECT_TRUE(s.matches(R"({"a": null, "x": 1.5e3, "y": -2})"));
  EXPECT_TRUE(s.matches(R"({"x": 1})"));
  EXPECT_FALSE(s.matches(R"({"x": "s"})"));
}

TEST(JsonSchema, ArraysCountTheirItems) {
  SchemaMatcher s(R"({"type": "array", "items": {"enum": ["x", 2, null]}, "minItems": 1, "maxItems": 2})");
  EXPECT_TRUE(s.matches(R"(["x"])"));
  EXPECT_TRUE(s.matches(R"([2, null])"));
  EXPECT_FALSE(s.matches("[]"));
  EXPECT_FALSE(s.matches(R"(["x", 2, null])"));
  EXPECT_FALSE(s.matches(R"(["y"])"));
  SchemaMatcher tuple(R"({"type": "array", "prefixItems": [{"type": "integer"}, {"const": "k"}], "items": false})");
  EXPECT_TRUE(tuple.matches(R"([7, "k"])"));
  EXPECT_FALSE(tuple.matches(R"([7, "k", 1])"));
}

TEST(JsonSchema, StringLengthsCountCharactersNotBytes) {
  SchemaMatcher s(R"({"type": "string", "minLength": 2, "maxLength": 3})");
  EXPECT_TRUE(s.matches(R"("ab")"));
  EXPECT_TRUE(s.matches("\"\xC3\xA9\\n\xE4\xBD\xA0\""));
  EXPECT_FALSE(s.matches(R"("a")"));
  EXPECT_FALSE(s.matches(R"("abcd")"));
}

TEST(JsonSchema, IntegerRanges) {
  SchemaMatcher s(R"({"type": "integer", "minimum": -15, "maximum": 123})");
  for (int v = -40; v <= 200; ++v) EXPECT_EQ(s.matches(std::to_string(v)), v >= -15 && v <= 123) << v;
  EXPECT_FALSE(s.matches("-0"));
  EXPECT_FALSE(s.matches("007"));
  SchemaMatcher above(R"({"type": "integer", "exclusiveMinimum": 99})");
  EXPECT_FALSE(above.matches("99"));
  EXPECT_TRUE(above.matches("100"));
  EXPECT_TRUE(above.matches("123456789"));
  // Both bounds negative, same magnitude length: "-" must bind the whole range.
  SchemaMatcher negative(R"({"type": "integer", "minimum": -60, "maximum": -21})");
  for (int v = -99; v <= 99; ++v) EXPECT_EQ(negative.matches(std::to_string(v)), v >= -60 && v <= -21) << v;
  SchemaMatcher below(R"({"type": "integer", "maximum": -20})");
  EXPECT_TRUE(below.matches("-20"));
  EXPECT_TRUE(below.matches("-1000"));
  EXPECT_FALSE(below.matches("-19"));
  EXPECT_FALSE(below.matches("5"));
}

TEST(JsonSchema, RecursiveRefs) {
  SchemaMatcher s(R"({"$ref": "#/$defs/node", "$defs": {"node": {"type": "object",
      "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
      "required": ["v"]}}})");
  EXPECT_TRUE(s.matches(R"({"v": 1, "kids": [{"v": 2}, {"v": 3, "kids": []}]})"));
  EXPECT_FALSE(s.matches(R"({"v": 1, "kids": [{"kids": [], "v": 3}]})"));
  EXPECT_FALSE(s.matches(R"({"v": 1, "kids": [{}]})"));
}

TEST(JsonSchema, AnyOfAndAllOf) {
  SchemaMatcher any(R"({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "boolean"}}]})");
  EXPECT_TRUE(any.matches(R"("s")"));
  EXPECT_TRUE(any.matches("[true, false]"));
  EXPECT_FALSE(any.matches("1"));
  SchemaMatcher all(R"({"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
      {"properties": {"b": {"type": "integer"}}, "required": ["b"]}]})");
  EXPECT_TRUE(all.matches(R"({"a": 1, "b": 2})"));
  EXPECT_FALSE(all.matches(R"({"a": 1})"));
}

// allOf writes the schema's own properties, then each part's in part order; a name a later part
// gives again keeps its first place and takes the later schema.
TEST(JsonSchema, AllOfKeepsPropertiesInPartOrder) {
  SchemaMatcher s(R"({"properties": {"z": {"type": "null"}}, "required": ["z"], "$defs": {"base": {"type": "object",
      "properties": {"y": {"type": "integer"}, "x": {"type": "integer"}}, "required": ["y", "x"]}},
      "allOf": [{"$ref": "#/$defs/base"}, {"properties": {"w": {"type": "boolean"}, "y": {"type": "string"}},
      "required": ["w"]}]})");
  EXPECT_TRUE(s.matches(R"({"z": null, "y": "s", "x": 1, "w": true})"));
  EXPECT_FALSE(s.matches(R"({"z": null, "y": 3, "x": 1, "w": true})"));
  EXPECT_FALSE(s.matches(R"({"w": true, "x": 1, "y": "s", "z": null})"));
  EXPECT_FALSE(s.matches(R"({"z": null, "w": true, "y": "s", "x": 1})"));
}

TEST(JsonSchema, AllOfPartsAreCheckedLikeSchemas) {
  EXPECT_NE(schema_error_of(R"({"allOf": [{"type": "object"}, {"if": {}}]})").find("'#/allOf/1': unsupported keyword 'if'"),
            std::string::npos);
  EXPECT_NE(schema_error_of(R"({"allOf": [{"properties": [1]}]})").find("'#/allOf/0': 'properties' must be an object"),
            std::string::npos);
  EXPECT_NE(schema_error_of(R"({"properties": 3, "allOf": [{"properties": {}}]})").find("'properties' must be an object"),
            std::string::npos);
}

// $ref paths walk objects by name whatever their size and order, ~0 and ~1 unescaped.
TEST(JsonSchema, RefsFindDefinitionsAmongMany) {
  std::string defs;
  for (int i = 0; i < 2000; ++i) defs += (i ? ", " : "") + fmt::format(R"("d{}": {{"const": {}}})", i, i);
  std::string refs;
  for (int i = 1999; i >= 0; i -= 3) refs += (refs.empty() ? "" : ", ") + fmt::format(R"({{"$ref": "#/$defs/d{}"}})", i);
  SchemaMatcher s(R"({"$defs": {)" + defs + R"(, "a/b~c": {"const": "slash"}}, "anyOf": [)" + refs +
                  R"(, {"$ref": "#/$defs/a~1b~0c"}]})");
  EXPECT_TRUE(s.matches("1999"));
  EXPECT_TRUE(s.matches("1"));
  EXPECT_TRUE(s.matches(R"("slash")"));
  EXPECT_FALSE(s.matches("2"));
}

TEST(JsonSchema, PatternsAndFormats) {
  SchemaMatcher p(R"({"type": "string", "pattern": "^[A-Z]{2}-\\d{3}(x|yz)?$"})");
  EXPECT_TRUE(p.matches(R"("AB-123")"));
  EXPECT_TRUE(p.matches(R"("QQ-000yz")"));
  EXPECT_FALSE(p.matches(R"("Ab-123")"));
  SchemaMatcher date(R"({"type": "string", "format": "date"})");
  EXPECT_TRUE(date.matches(R"("2024-02-28")"));
  EXPECT_FALSE(date.matches(R"("2024-02-30")"));
  EXPECT_FALSE(date.matches(R"("2024-13-01")"));
  SchemaMatcher uuid(R"({"type": "string", "format": "uuid"})");
  EXPECT_TRUE(uuid.matches(R"("123e4567-e89b-12d3-a456-426614174000")"));
  SchemaMatcher email(R"({"type": "string", "format": "email"})");
  EXPECT_TRUE(email.matches(R"("a.b+c@x-1.example.org")"));
  EXPECT_FALSE(email.matches(R"("a..b@x.org")"));
  EXPECT_FALSE(email.matches(R"(".a@x.org")"));
  EXPECT_FALSE(email.matches(R"("a@x-.org")"));
  SchemaMatcher dt(R"({"type": "string", "format": "date-time"})");
  EXPECT_TRUE(dt.matches(R"("2024-01-31T23:59:07.25Z")"));
  EXPECT_TRUE(dt.matches(R"("2024-01-31T23:59:07+02:00")"));
}

TEST(JsonSchema, HostnamesAddressesAndUris) {
  SchemaMatcher host(R"({"type": "string", "format": "hostname"})");
  EXPECT_TRUE(host.matches(R"("api.example-1.org")"));
  EXPECT_TRUE(host.matches(R"("localhost")"));
  EXPECT_FALSE(host.matches(R"("-a.org")"));
  EXPECT_FALSE(host.matches(R"("a-.org")"));
  EXPECT_FALSE(host.matches(R"("a..org")"));
  SchemaMatcher ip(R"({"type": "string", "format": "ipv4"})");
  EXPECT_TRUE(ip.matches(R"("192.168.0.255")"));
  EXPECT_TRUE(ip.matches(R"("0.0.0.0")"));
  EXPECT_FALSE(ip.matches(R"("256.1.1.1")"));
  EXPECT_FALSE(ip.matches(R"("01.1.1.1")"));
  EXPECT_FALSE(ip.matches(R"("1.1.1")"));
  SchemaMatcher uri(R"({"type": "string", "format": "uri", "minLength": 1, "maxLength": 2083})");
  EXPECT_TRUE(uri.matches(R"("https://example.com")"));
  EXPECT_TRUE(uri.matches(R"("http://10.0.0.1:8080/a/b%20c/?q=1&r=(x)#top")"));
  EXPECT_TRUE(uri.matches(R"("ftp://files.example.org/pub/")"));
  EXPECT_FALSE(uri.matches(R"("example.com")"));
  EXPECT_FALSE(uri.matches(R"("https://exa mple.com")"));
  EXPECT_FALSE(uri.matches(R"("https://example.com/%2")"));
  EXPECT_FALSE(uri.matches(R"("https://example.com/"")"));
}

TEST(JsonSchema, WhitespaceIsBounded) {
  SchemaMatcher s(R"({"type": "array", "items": {"type": "integer"}})");
  EXPECT_TRUE(s.matches("[1,\n" + std::string(7, ' ') + "2]"));
  EXPECT_FALSE(s.matches("[1,\n" + std::string(8, ' ') + "2]"));
}

TEST(JsonSchema, UnsupportedKeywordsAreNamed) {
  EXPECT_NE(schema_error_of(R"({"type": "object", "patternProperties": {}})")
                .find("unsupported keyword 'patternProperties'"),
            std::string::npos);
  EXPECT_NE(schema_error_of(R"({"properties": {"a": {"type": "number", "multipleOf": 2}}})").find("'#/properties/a'"),
            std::string::npos);
  EXPECT_NE(schema_error_of(R"({"type": "string", "format": "ipv6"})").find("\"ipv6\""), std::string::npos);
  EXPECT_NE(schema_error_of(R"({"$ref": "#/$defs/missing"})").find("points nowhere"), std::string::npos);
  EXPECT_NE(schema_error_of(R"x({"type": "string", "pattern": "(?=a)"})x").find("lookaround"), std::string::npos);
  EXPECT_NE(schema_error_of(R"({"required": ["x"], "properties": {}})").find("'x'"), std::string::npos);
}

TEST(JsonSchema, EmptySchemaIsAnyValue) {
  SchemaMatcher s("{}");
  EXPECT_TRUE(s.matches(R"({"k": [1, "2", {"x": null}]})"));
  EXPECT_TRUE(s.matches("-1.5e-7"));
}

}  // namespace
}  // namespace strata::grammar
