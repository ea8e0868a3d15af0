#include "grammar/number_range.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "grammar/gbnf_parser.h"
#include "grammar/grammar_matcher.h"
#include "grammar/json_schema.h"

namespace strata::grammar {
namespace {

std::string spell(const Decimal& d) {
  return (d.negative ? "-" : "") + d.int_digits + (d.frac_digits.empty() ? "" : "." + d.frac_digits);
}

TEST(NumberRange, DecimalsAreTheShortestExactSpelling) {
  EXPECT_EQ(spell(*decimal_of(0.1)), "0.1");
  EXPECT_EQ(spell(*decimal_of(1e-7)), "0.0000001");
  EXPECT_EQ(spell(*decimal_of(1.5e15)), "1500000000000000");
  EXPECT_EQ(spell(*decimal_of(-0.0)), "0");
  EXPECT_EQ(spell(*decimal_of(100)), "100");
  EXPECT_EQ(spell(*decimal_of(-123.456)), "-123.456");
  EXPECT_EQ(spell(*decimal_of(0.30000000000000004)), "0.30000000000000004");
  EXPECT_FALSE(decimal_of(1e16).has_value());
  EXPECT_LT(compare_decimals(*decimal_of(-2), *decimal_of(-1.5)), 0);
  EXPECT_GT(compare_decimals(*decimal_of(0.25), *decimal_of(0.125)), 0);
  EXPECT_EQ(compare_decimals(*decimal_of(3), *decimal_of(3.0)), 0);
}

// A value in thousandths, exact for the texts below.
long long thousandths(const std::string& text) {
  const bool negative = text[0] == '-';
  const std::string body = negative ? text.substr(1) : text;
  const size_t point = body.find('.');
  long long v = std::stoll(body.substr(0, point)) * 1000;
  if (point != std::string::npos) {
    std::string frac = body.substr(point + 1);
    frac.resize(3, '0');
    v += std::stoll(frac);
  }
  return negative ? -v : v;
}

// Every number text with an integer part 0..12 and up to two fraction digits (trailing zeros
// and "-0" forms included), against every pair of bounds, inclusive and exclusive: accepted iff
// its value is in range (the exclusive bounds' steps of 1e-13 to 1e-15 fall between these texts).
TEST(NumberRange, AcceptsExactlyTheNumbersWithinTheBounds) {
  std::vector<std::string> texts;
  for (const char* sign : {"", "-"}) {
    for (int i = 0; i <= 12; ++i) {
      texts.push_back(fmt::format("{}{}", sign, i));
      for (int f = 0; f < 10; ++f) texts.push_back(fmt::format("{}{}.{}", sign, i, f));
      for (int f = 0; f < 100; ++f) texts.push_back(fmt::format("{}{}.{:02}", sign, i, f));
    }
  }
  const std::vector<std::optional<std::string>> bounds = {std::nullopt, "-10.5", "-2", "-1.25", "-0.5", "0",
                                                          "0.05", "0.5", "1", "1.5", "2.75", "3", "10.125"};
  int n_schemas = 0;
  for (bool exclusive : {false, true}) {
  for (const auto& lo : bounds) {
    for (const auto& hi : bounds) {
      if (!lo && !hi) continue;
      if (lo && hi && (exclusive ? thousandths(*lo) >= thousandths(*hi) : thousandths(*lo) > thousandths(*hi))) continue;
      std::string schema = R"({"type": "number")";
      if (lo) schema += (exclusive ? R"(, "exclusiveMinimum": )" : R"(, "minimum": )") + *lo;
      if (hi) schema += (exclusive ? R"(, "exclusiveMaximum": )" : R"(, "maximum": )") + *hi;
      schema += "}";
      Result<std::string> gbnf = json_schema_to_gbnf(SchemaJson::parse(schema));
      ASSERT_TRUE(gbnf.ok()) << schema << ": " << gbnf.status().ToString();
      Result<Grammar> g = parse_gbnf(*gbnf);
      ASSERT_TRUE(g.ok()) << schema << ": " << g.status().ToString() << "\n" << *gbnf;
      std::shared_ptr<const CompiledGrammar> compiled = *CompiledGrammar::Compile(*g);
      for (const std::string& text : texts) {
        const long long v = thousandths(text);
        // "-0" forms are left out when the range starts at 0 (number_range.h).
        const bool negative_zero = text[0] == '-' && v == 0;
        const bool want = exclusive ? (!lo || v > thousandths(*lo)) && (!hi || v < thousandths(*hi)) &&
                                          !(negative_zero && lo && thousandths(*lo) >= 0)
                                    : (!lo || v >= thousandths(*lo)) && (!hi || v <= thousandths(*hi)) &&
                                          !(negative_zero && lo && thousandths(*lo) == 0);
        GrammarMatcher m(compiled);
        ASSERT_EQ(m.accept(text) && m.accepting(), want) << schema << " " << text << "\n" << *gbnf;
      }
      ++n_schemas;
    }
  }
  }
  EXPECT_EQ(n_schemas, 102 + 90);
}

TEST(NumberRange, LongFractionsAndLargeIntegersStayExact) {
  Result<std::string> gbnf = json_schema_to_gbnf(SchemaJson::parse(R"({"type": "number", "minimum": 0.0000001,
      "maximum": 123456789.125})"));
  ASSERT_TRUE(gbnf.ok()) << gbnf.status().ToString();
  std::shared_ptr<const CompiledGrammar> compiled = *CompiledGrammar::Compile(*parse_gbnf(*gbnf));
  auto accepts = [&](const std::string& text) {
    GrammarMatcher m(compiled);
    return m.accept(text) && m.accepting();
  };
  EXPECT_TRUE(accepts("0.0000001"));
  EXPECT_TRUE(accepts("0.00000010"));
  EXPECT_FALSE(accepts("0.00000009999"));
  EXPECT_FALSE(accepts("0"));
  EXPECT_TRUE(accepts("123456789.125"));
  EXPECT_TRUE(accepts("123456789.1249999999999999"));
  EXPECT_FALSE(accepts("123456789.1250000000000001"));
  EXPECT_FALSE(accepts("123456790"));
  EXPECT_TRUE(accepts("98765432.5"));
  EXPECT_FALSE(accepts("1e3"));  // bounded numbers are written without an exponent
}

// An exclusive bound is the inclusive one a step inside it, more than the bound's double spacing:
// every accepted text parses to a double strictly past the bound's.
TEST(NumberRange, ExclusiveBoundsStepInsideAndStayPastTheBoundAsDoubles) {
  struct Case {
    const char* schema;
    std::vector<const char*> accepted, rejected;
    double bound;
    bool above;
  };
  const std::vector<Case> cases = {
      {R"({"type": "number", "exclusiveMinimum": 0})", {"0.000000000000001", "7", "0.5"}, {"0", "0.0000000000000009", "-1"}, 0, true},
      {R"({"type": "number", "exclusiveMaximum": 10.5})", {"10.4999999999999", "-3", "10"}, {"10.5", "10.49999999999995", "11"}, 10.5, false},
      {R"({"type": "number", "exclusiveMinimum": 1.1})", {"1.10000000000001", "2"}, {"1.1", "1.100000000000001", "1.10000000000000999"}, 1.1, true},
      {R"({"type": "number", "exclusiveMinimum": -2, "maximum": -1})", {"-1.99999999999999", "-1"}, {"-2", "-1.999999999999999", "-0.5"}, -2, true},
  };
  for (const Case& c : cases) {
    Result<std::string> gbnf = json_schema_to_gbnf(SchemaJson::parse(c.schema));
    ASSERT_TRUE(gbnf.ok()) << c.schema << ": " << gbnf.status().ToString();
    std::shared_ptr<const CompiledGrammar> compiled = *CompiledGrammar::Compile(*parse_gbnf(*gbnf));
    auto accepts = [&](const std::string& text) {
      GrammarMatcher m(compiled);
      return m.accept(text) && m.accepting();
    };
    for (const char* text : c.accepted) {
      EXPECT_TRUE(accepts(text)) << c.schema << " " << text;
      const double v = std::strtod(text, nullptr);
      EXPECT_TRUE(c.above ? v > c.bound : v < c.bound) << text;
    }
    for (const char* text : c.rejected) EXPECT_FALSE(accepts(text)) << c.schema << " " << text;
  }
}

TEST(NumberRange, CrossedAndOutOfRangeBoundsOnNumbersAreNamedErrors) {
  auto error_of = [](const char* schema) {
    Result<std::string> gbnf = json_schema_to_gbnf(SchemaJson::parse(schema));
    return gbnf.ok() ? std::string() : std::string(gbnf.status().message());
  };
  EXPECT_NE(error_of(R"({"type": "number", "minimum": 2, "maximum": 1.5})").find("no number lies between"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"type": "number", "exclusiveMinimum": 1, "exclusiveMaximum": 1})").find("no number lies"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"type": "number", "maximum": 1e20})").find("within +-1e15"), std::string::npos);
  EXPECT_NE(error_of(R"({"type": "number", "exclusiveMinimum": 1e14})").find("below 1e14"), std::string::npos);
  EXPECT_NE(error_of(R"({"type": "number", "exclusiveMaximum": true})").find("must be a number"), std::string::npos);
}

}  // namespace
}  // namespace strata::grammar
