#include "server/json_fields.h"

#include <gtest/gtest.h>

namespace strata::server {
namespace {

TEST(ParseJsonObject, RejectsInvalidJsonAndNonObjects) {
  Result<RequestJson> bad = parse_json_object("{\"a\": ");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("not valid JSON"), std::string::npos);
  Result<RequestJson> array = parse_json_object("[1, 2]");
  ASSERT_FALSE(array.ok());
  EXPECT_NE(array.status().message().find("must be a JSON object, got array"), std::string::npos);
  EXPECT_TRUE(parse_json_object("{\"a\": 1}").ok());
}

TEST(ParseJsonObject, NumberTooLargeForADoubleNamesItsPathAndOffset) {
  auto message = [](const std::string& body) {
    Result<RequestJson> parsed = parse_json_object(body);
    EXPECT_FALSE(parsed.ok()) << body;
    EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
    return parsed.status().message();
  };
  EXPECT_EQ(message(R"({"temperature": 1e309})"),
            "'temperature' holds a number too large for a double (1e309) at byte 16");
  EXPECT_EQ(message(R"({"a": {"b": [0, {"c": 1}], "d": [[1], [2, -1e999]]}})"),
            "'a.d[1][1]' holds a number too large for a double (-1e999) at byte 42");
  EXPECT_EQ(message("1e309"), "request body holds a number too large for a double (1e309) at byte 0");
  std::string long_digits = "{\"n\": 1" + std::string(400, '0') + "}";
  EXPECT_NE(message(long_digits).find("'n' holds a number too large for a double (1000"), std::string::npos);
  EXPECT_LT(message(long_digits).size(), 120u);
  EXPECT_TRUE(parse_json_object(R"({"t": 1e308, "u": [1e-400]})").ok());
}

TEST(ReadFloat, LeavesDefaultWhenAbsentOrNullAndChecksRange) {
  float v = 0.5f;
  EXPECT_TRUE(read_float(json::object(), "t", 0, 2, &v).ok());
  EXPECT_TRUE(read_float(json{{"t", nullptr}}, "t", 0, 2, &v).ok());
  EXPECT_EQ(v, 0.5f);
  EXPECT_TRUE(read_float(json{{"t", 1.5}}, "t", 0, 2, &v).ok());
  EXPECT_EQ(v, 1.5f);
  Status range = read_float(json{{"t", 3}}, "t", 0, 2, &v);
  EXPECT_EQ(range.message(), "'t' must be a number in [0, 2], got 3");
  Status type = read_float(json{{"t", "hot"}}, "t", 0, 2, &v);
  EXPECT_EQ(type.message(), "'t' must be a number in [0, 2], got \"hot\"");
  EXPECT_EQ(v, 1.5f);
}

TEST(ReadInt, AcceptsWholeFloatsRejectsFractions) {
  int v = 0;
  EXPECT_TRUE(read_int(json{{"n", 7.0}}, "n", 1, 10, &v).ok());
  EXPECT_EQ(v, 7);
  EXPECT_FALSE(read_int(json{{"n", 7.5}}, "n", 1, 10, &v).ok());
  EXPECT_FALSE(read_int(json{{"n", 11}}, "n", 1, 10, &v).ok());
  EXPECT_FALSE(read_int(json{{"n", true}}, "n", 1, 10, &v).ok());
  EXPECT_FALSE(read_int(json{{"n", 1e300}}, "n", 1, 10, &v).ok());
}

TEST(ReadUint64, KeepsBitsOfNegativeSeeds) {
  uint64_t seed = 0;
  EXPECT_TRUE(read_uint64(json{{"seed", -1}}, "seed", &seed).ok());
  EXPECT_EQ(seed, ~uint64_t{0});
  EXPECT_FALSE(read_uint64(json{{"seed", 1.5}}, "seed", &seed).ok());
}

TEST(ReadStringList, AcceptsStringOrArray) {
  std::vector<std::string> out;
  EXPECT_TRUE(read_string_list(json{{"stop", "x"}}, "stop", 4, &out).ok());
  EXPECT_EQ(out, std::vector<std::string>{"x"});
  EXPECT_TRUE(read_string_list(json{{"stop", {"a", "b"}}}, "stop", 4, &out).ok());
  EXPECT_EQ(out, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(read_string_list(json{{"stop", {"a", 1}}}, "stop", 4, &out).ok());
  EXPECT_FALSE(read_string_list(json{{"stop", 5}}, "stop", 4, &out).ok());
  EXPECT_FALSE(read_string_list(json{{"stop", {"a", "b", "c"}}}, "stop", 2, &out).ok());
  EXPECT_FALSE(read_string_list(json{{"stop", ""}}, "stop", 2, &out).ok());
}

TEST(RejectIfSet, AllowsEmptyValuesOnly) {
  EXPECT_TRUE(reject_if_set(json{{"tools", json::array()}}, "tools").ok());
  EXPECT_TRUE(reject_if_set(json{{"tools", nullptr}}, "tools").ok());
  EXPECT_TRUE(reject_if_set(json{{"suffix", ""}}, "suffix").ok());
  Status set = reject_if_set(json{{"tools", {{{"type", "function"}}}}}, "tools");
  EXPECT_EQ(set.code(), Code::kUnsupported);
  EXPECT_EQ(set.message(), "'tools' is not supported by this server");
}

}  // namespace
}  // namespace strata::server
