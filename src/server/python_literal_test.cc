// PythonLiteralReader: Python literals as LFM2 writes its calls' argument values, read as JSON.
#include "server/python_literal.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace strata::server {
namespace {

constexpr std::string_view kNotALiteral = "<refused>";

// text as one literal and nothing after it, as compact JSON; kNotALiteral when it is not one.
std::string literal_json(std::string_view text) {
  PythonLiteralReader reader(text);
  RequestJson value;
  if (!reader.read_value(&value)) return std::string(kNotALiteral);
  reader.skip_space();
  if (!reader.at_end()) return std::string(kNotALiteral);
  return value.dump(-1, ' ', false, RequestJson::error_handler_t::replace);
}

TEST(PythonLiteral, StringsTakeEitherQuoteAndPythonsEscapes) {
  EXPECT_EQ(literal_json("'Paris'"), R"("Paris")");
  EXPECT_EQ(literal_json(R"("it's")"), R"("it's")");
  EXPECT_EQ(literal_json(R"('it\'s')"), R"("it's")");
  EXPECT_EQ(literal_json(R"("say \"hi\"")"), R"("say \"hi\"")");
  EXPECT_EQ(literal_json(R"('a\nb\tc\\d\re\0f')"), R"("a\nb\tc\\d\re\u0000f")");
  EXPECT_EQ(literal_json(R"('\x41\101\u00e9\U0001F600')"), "\"AA\xC3\xA9\xF0\x9F\x98\x80\"");
  // Two \u escapes of a surrogate pair are one character (as JSON writes them); a lone one U+FFFD.
  EXPECT_EQ(literal_json(R"('\ud83d\ude00 \ud83d!')"), "\"\xF0\x9F\x98\x80 \xEF\xBF\xBD!\"");
  EXPECT_EQ(literal_json(R"('C:\dir')"), R"("C:\\dir")");  // not an escape: the backslash stays
  EXPECT_EQ(literal_json(R"(r'C:\new\'')"), R"("C:\\new\\'")");
  EXPECT_EQ(literal_json(R"(u'x')"), R"("x")");
  EXPECT_EQ(literal_json("'''a'b\"c'''"), R"("a'b\"c")");
  EXPECT_EQ(literal_json("\"\"\"two\nlines\"\"\""), R"("two\nlines")");
  EXPECT_EQ(literal_json("'raw\nnewline'"), R"("raw\nnewline")");  // the template writes values unescaped
  EXPECT_EQ(literal_json("'a' \"b\"\n'c'"), R"("abc")");
  EXPECT_EQ(literal_json("'line \\\ncontinued'"), R"("line continued")");
  EXPECT_EQ(literal_json("''"), R"("")");
  EXPECT_EQ(literal_json("'caf\xC3\xA9 <|x|>'"), "\"caf\xC3\xA9 <|x|>\"");
}

TEST(PythonLiteral, NumbersAreJsonNumbersAndFloatsStayFloats) {
  EXPECT_EQ(literal_json("3"), "3");
  EXPECT_EQ(literal_json("-7"), "-7");
  EXPECT_EQ(literal_json("+4"), "4");
  EXPECT_EQ(literal_json("1_000_000"), "1000000");
  EXPECT_EQ(literal_json("0"), "0");
  EXPECT_EQ(literal_json("2.5"), "2.5");
  EXPECT_EQ(literal_json("-0.25"), "-0.25");
  EXPECT_EQ(literal_json(".5"), "0.5");
  EXPECT_EQ(literal_json("5."), "5.0");
  EXPECT_EQ(literal_json("1e3"), "1000.0");
  EXPECT_EQ(literal_json("-1.5E-3"), "-0.0015");
  EXPECT_EQ(literal_json("0x1F"), "31");
  EXPECT_EQ(literal_json("-0o17"), "-15");
  EXPECT_EQ(literal_json("0b1010"), "10");
  EXPECT_EQ(literal_json("9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(literal_json("-0x8000000000000000"), "-9223372036854775808");
}

TEST(PythonLiteral, TrueFalseAndNoneAreJsonsWords) {
  EXPECT_EQ(literal_json("True"), "true");
  EXPECT_EQ(literal_json("False"), "false");
  EXPECT_EQ(literal_json("None"), "null");
  EXPECT_EQ(literal_json("[true, false, null]"), "[true,false,null]");  // JSON's, which small models mix in
}

TEST(PythonLiteral, ListsTuplesAndDictsNest) {
  EXPECT_EQ(literal_json(R"([1, [2, (3, 'x')], {'a': {"b": [None, -1.5]}}, (), []])"),
            R"([1,[2,[3,"x"]],{"a":{"b":[null,-1.5]}},[],[]])");
  EXPECT_EQ(literal_json("(1,)"), "[1]");
  EXPECT_EQ(literal_json("(1)"), "1");  // parentheses, not a tuple
  EXPECT_EQ(literal_json("[ 1 ,\n\t2 , ]"), "[1,2]");
  EXPECT_EQ(literal_json("{'z': 1, 'a': 2,}"), R"({"z":1,"a":2})");  // in the order written
  EXPECT_EQ(literal_json("{'b': 1, 'a': 2, 'b': 3}"), R"({"b":3,"a":2})");  // as Python's dict
  EXPECT_EQ(literal_json("{1: 'a', True: 'b', None: 'c', 2.5: 'd'}"), R"({"1":"a","true":"b","null":"c","2.5":"d"})");
  EXPECT_EQ(literal_json("{}"), "{}");
}

TEST(PythonLiteral, AnythingElseIsRefused) {
  for (std::string_view text :
       {"", "Paris", "'open", "\"mixed'", "'''a''", "'a\\", R"('\N{EM DASH}')", R"('\x4')", R"('\u12')",
        R"('\U00110000')", "f(1)", "{1, 2}", "{'a' 1}", "{'a': }", "{[1]: 2}", "[1 2]", "[1,,2]", "[1", "(1, 2",
        "1j", "3abc", "1e999", "0x", "0xFFFFFFFFFFFFFFFFF", "-0x8000000000000001", "b'x'", "f'x'", "-", ".", "--1",
        "1e", "Nonesuch", "1.2.3", "[1] 2"}) {
    EXPECT_EQ(literal_json(text), kNotALiteral) << text;
  }
  const std::string deep = std::string(65, '[') + std::string(65, ']');
  EXPECT_EQ(literal_json(deep), kNotALiteral);
  const std::string nested = std::string(64, '[') + std::string(64, ']');
  EXPECT_NE(literal_json(nested), kNotALiteral);
}

}  // namespace
}  // namespace strata::server
