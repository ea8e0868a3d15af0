// parse_ordered_json: request bodies keep the client's key order, read as nlohmann's own ordered
// parse reads them (duplicates, errors), with a limit on an object's keys.
#include "server/request_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/json_fields.h"

namespace strata::server {
namespace {

std::string keys_object(size_t n_keys) {
  std::string text = "{";
  for (size_t i = 0; i < n_keys; ++i) text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
  return text + "}";
}

TEST(RequestJson, ObjectsKeepTheKeysInTheOrderSent) {
  const std::string text =
      R"({"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object",)"
      R"( "properties": {"z": {"type": "string"}, "a": [{"y": 1, "b": 2}]}, "required": ["z"]}}})";
  OrderedJsonParse parsed = parse_ordered_json(text);
  ASSERT_EQ(parsed.error, OrderedJsonParse::Error::kNone) << parsed.message;
  EXPECT_EQ(parsed.value.dump(),
            R"({"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object",)"
            R"("properties":{"z":{"type":"string"},"a":[{"y":1,"b":2}]},"required":["z"]}}})");
}

// A key sent twice keeps its first place and takes its last value, in small objects (looked for
// pairwise) and large ones (looked for by sorting), as nlohmann::ordered_json::parse gives them.
TEST(RequestJson, DuplicateKeysReadAsNlohmannsOrderedParseReadsThem) {
  std::vector<std::string> texts = {R"({"a": 1, "b": 2, "a": {"c": 3}, "c": 4})", R"({"x": [1], "x": null})",
                                    R"([{"k": 1, "k": 2, "k": 3}, {"k": {"k": 1, "k": 2}}])"};
  std::string large = keys_object(40);
  large.back() = ',';
  large += R"("k3": "again", "k0": "first", "k39": [1]})";
  texts.push_back(large);
  for (const std::string& text : texts) {
    OrderedJsonParse parsed = parse_ordered_json(text);
    ASSERT_EQ(parsed.error, OrderedJsonParse::Error::kNone) << text;
    EXPECT_EQ(parsed.value.dump(), RequestJson::parse(text).dump()) << text;
  }
}

TEST(RequestJson, MalformedTextFailsWithNlohmannsMessage) {
  for (const std::string text : {"{\"a\": 1} x", "{\"a\": }", "", "[1, 2", "{\"a\" 1}", "\"\\ud800\""}) {
    OrderedJsonParse parsed = parse_ordered_json(text);
    EXPECT_EQ(parsed.error, OrderedJsonParse::Error::kSyntax) << text;
    std::string expected;
    try {
      const nlohmann::json never = nlohmann::json::parse(text);
      ADD_FAILURE() << "nlohmann parsed " << never.dump();
    } catch (const nlohmann::json::exception& e) {
      expected = e.what();
    }
    EXPECT_EQ(parsed.message, expected) << text;
    EXPECT_TRUE(parsed.value.is_null());
  }
  OrderedJsonParse overflow = parse_ordered_json(R"({"t": 1e999})");
  EXPECT_EQ(overflow.error, OrderedJsonParse::Error::kNumberOverflow);
}

TEST(RequestJson, AnObjectMayHoldUpToTheLimitOfKeys) {
  OrderedJsonParse at_limit = parse_ordered_json(keys_object(kMaxObjectKeys));
  ASSERT_EQ(at_limit.error, OrderedJsonParse::Error::kNone) << at_limit.message;
  EXPECT_EQ(at_limit.value.size(), kMaxObjectKeys);
  EXPECT_EQ(at_limit.value.back(), kMaxObjectKeys - 1);

  OrderedJsonParse over = parse_ordered_json(keys_object(kMaxObjectKeys + 1));
  EXPECT_EQ(over.error, OrderedJsonParse::Error::kTooManyKeys);
  EXPECT_EQ(over.message, "");
  EXPECT_TRUE(over.value.is_null());
}

TEST(RequestJson, TheRefusedObjectIsNamedByItsPath) {
  const std::string text = R"({"a": 1, "tools": [{}, {"function": {"p": )" + keys_object(4) + "}}]}";
  OrderedJsonParse parsed = parse_ordered_json(text, /*max_object_keys=*/3);
  EXPECT_EQ(parsed.error, OrderedJsonParse::Error::kTooManyKeys);
  EXPECT_EQ(parsed.message, "tools[1].function.p");
  EXPECT_EQ(parse_ordered_json("[[0, " + keys_object(4) + "]]", 3).message, "[0][1]");
}

TEST(RequestJson, TheBodyParserRefusesTooManyKeysNamingTheLimit) {
  Result<RequestJson> body = parse_json_object(R"({"logit_bias": )" + keys_object(kMaxObjectKeys + 1) + "}");
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(body.status().message(),
            "'logit_bias' is an object with more than 10000 keys (the most one JSON object may have)");
  Result<RequestJson> top = parse_json_object(keys_object(kMaxObjectKeys + 1));
  ASSERT_FALSE(top.ok());
  EXPECT_EQ(top.status().message(),
            "request body is an object with more than 10000 keys (the most one JSON object may have)");
}

}  // namespace
}  // namespace strata::server
