// Expressions: literals, operators, tests, access, slicing, methods and Python printing rules.
#include <gtest/gtest.h>

#include "chat/jinja_test_util.h"

namespace strata::jinja {
namespace {

TEST(JinjaExpr, PrintsValuesAsPythonDoes) {
  EXPECT_EQ(render_text("{{ true }} {{ none }} {{ False }} {{ [1, 'a', none] }} {{ {'k': [true]} }}"),
            "True None False [1, 'a', None] {'k': [True]}");
  EXPECT_EQ(render_text("{{ 1.0 }} {{ 0.1 + 0.2 }} {{ 1e16 }} {{ 0.00001 }} {{ 10 / 4 }} {{ 7 / 7 }}"),
            "1.0 0.30000000000000004 1e+16 1e-05 2.5 1.0");
  EXPECT_EQ(render_text("{{ \"it's\" }} {{ [\"it's\"] }}"), "it's [\"it's\"]");
  EXPECT_EQ(render_text("{{ missing }}|{{ obj.missing }}", {{"obj", nlohmann::json::object()}}), "|");
}

// Python dicts take integer keys too (Seed-OSS's template looks a thinking budget up in
// {0: 0, 512: 128, ...}): they are found by ints (and by True as 1), iterate, sort and print as
// ints, and json.dumps writes them as their digits; the string "512" is another key.
TEST(JinjaExpr, DictsTakeIntegerKeys) {
  const char* table = "{% set d = {0: 'none', 512: 'half', 'x': 1} %}";
  EXPECT_EQ(render_text(std::string(table) + "{{ d[512] }} {{ d.get(0) }} {{ d['512'] is undefined }} {{ 512 in d }} "
                                             "{{ '512' in d }} {{ d[true] is undefined }}"),
            "half none True True False True");
  EXPECT_EQ(render_text(std::string(table) + "{% for k in d %}{{ k + 1 if k is number else k }} {% endfor %}"), "1 513 x ");
  EXPECT_EQ(render_text(std::string(table) + "{{ d }} {{ d | tojson }} {{ d.keys() | list }}"),
            "{0: 'none', 512: 'half', 'x': 1} {\"0\": \"none\", \"512\": \"half\", \"x\": 1} [0, 512, 'x']");
  EXPECT_EQ(render_text("{% for k, v in {1024: 'b', 8: 'a'} | dictsort %}{{ k }}={{ v }} {% endfor %}"), "8=a 1024=b ");
  EXPECT_EQ(render_text("{% for k, v in {3: 'c'} | items %}{{ k * 2 }}{{ v }}{% endfor %}"), "6c");
  EXPECT_NE(render_error("{{ {[1]: 2} }}").find("dict keys must be strings or integers, got list"), std::string::npos);
  // An input's key that starts with NUL stays the string it is.
  const nlohmann::json odd = {{"d", {{std::string("\0x", 2), 1}}}};
  EXPECT_EQ(render_text("{% for k, v in d | items %}{{ k | length }}{{ v }}{% endfor %}{{ d | tojson | length }}", odd),
            "2114");
}

TEST(JinjaExpr, TuplesPrintAsTuplesAndDifferFromLists) {
  EXPECT_EQ(render_text("{{ (1, 2) }} {{ () }} {{ (1,) }} {{ (1, 2) == [1, 2] }} {{ (1, 2) == (1, 2) }}"),
            "(1, 2) () (1,) False True");
}

TEST(JinjaExpr, DecodesStringEscapes) {
  EXPECT_EQ(render_text("{{ 'a\\nb\\t\\'\\\\\\u00e9' }}"), "a\nb\t'\\\xC3\xA9");
  EXPECT_EQ(render_text("{{ 'con' 'cat' }}"), "concat");
}

TEST(JinjaExpr, ArithmeticFollowsPython) {
  EXPECT_EQ(render_text("{{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }} {{ 7 % -3 }} {{ 2 ** 10 }} {{ 1 + 2 * 3 - 4 }}"),
            "3 -4 2 -2 1024 3");
  EXPECT_EQ(render_text("{{ 1 + 1.5 }} {{ 7.5 // 2 }} {{ -3 }} {{ 'ab' * 3 }} {{ [0] * 2 }} {{ [1] + [2] }}"),
            "2.5 3.0 -3 ababab [0, 0] [1, 2]");
  EXPECT_EQ(render_text("{{ 'a' ~ 1 ~ none ~ missing }}"), "a1None");
  EXPECT_EQ(render_text("{{ true + 1 }}"), "2");
}

TEST(JinjaExpr, ComparisonsAndLogic) {
  EXPECT_EQ(render_text("{{ 1 < 2 }} {{ 2 <= 1 }} {{ 'a' < 'b' }} {{ 1 == 1.0 }} {{ 1 != 'x' }} {{ [1, 2] < [1, 3] }}"),
            "True False True True True True");
  EXPECT_EQ(render_text("{{ 1 < 2 < 3 }} {{ 1 < 3 < 2 }}"), "True False");
  EXPECT_EQ(render_text("{{ 0 or 'fallback' }} {{ 'x' and 'y' }} {{ '' and 'y' }}| {{ not 0 }} {{ not [1] }}"),
            "fallback y | True False");
  EXPECT_EQ(render_text("{{ 'b' in 'abc' }} {{ 2 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 3 not in [1] }}"),
            "True True True True");
}

TEST(JinjaExpr, ConditionalExpressions) {
  EXPECT_EQ(render_text("{{ 'yes' if flag else 'no' }}", {{"flag", true}}), "yes");
  EXPECT_EQ(render_text("{{ 'yes' if flag else 'no' }}", {{"flag", false}}), "no");
  EXPECT_EQ(render_text("[{{ 'yes' if flag }}]", {{"flag", false}}), "[]");
}

TEST(JinjaExpr, Tests) {
  nlohmann::json ctx = {{"s", "x"}, {"n", nullptr}, {"d", {{"a", 1}}}, {"l", {1}}, {"i", 3}, {"f", 1.5}, {"b", true}};
  EXPECT_EQ(render_text("{{ s is defined }} {{ zz is defined }} {{ zz is undefined }} {{ n is none }} "
                        "{{ n is not none }} {{ s is string }} {{ d is mapping }} {{ l is mapping }}",
                        ctx),
            "True False True True False True True False");
  EXPECT_EQ(render_text("{{ l is sequence }} {{ s is iterable }} {{ i is number }} {{ f is number }} {{ b is true }} "
                        "{{ b is false }} {{ i is integer }} {{ f is float }} {{ b is boolean }}",
                        ctx),
            "True True True True True False True True True");
  EXPECT_EQ(render_text("{{ 1 is in l }} {{ i is odd }} {{ i is even }} {{ 9 is divisibleby 3 }} {{ i is eq(3) }} "
                        "{{ i is gt 2 }} {{ 'abc' is lower }} {{ i is sameas 3 }}",
                        ctx),
            "True True False True True True True True");
}

TEST(JinjaExpr, AttributeAndItemAccess) {
  nlohmann::json ctx = {{"m", {{"role", "user"}, {"parts", {"p0", "p1"}}}}};
  EXPECT_EQ(render_text("{{ m.role }} {{ m['role'] }} {{ m.parts[1] }} {{ m.parts.0 }} {{ m.parts[-1] }}", ctx),
            "user user p1 p0 p1");
  EXPECT_EQ(render_text("[{{ m.parts[5] }}]", ctx), "[]");
}

TEST(JinjaExpr, SlicesListsAndStringsByCodePoint) {
  nlohmann::json ctx = {{"l", {1, 2, 3, 4}}, {"s", "héllo"}};
  EXPECT_EQ(render_text("{{ l[::-1] }} {{ l[1:] }} {{ l[:-1] }} {{ l[::2] }} {{ l[-2:] }} {{ l[3:1:-1] }} {{ l[9:] }}", ctx),
            "[4, 3, 2, 1] [2, 3, 4] [1, 2, 3] [1, 3] [3, 4] [4, 3] []");
  EXPECT_EQ(render_text("{{ s[::-1] }} {{ s[1:3] }} {{ s[1] }} {{ s | length }}", ctx), "olléh él é 5");
}

TEST(JinjaExpr, StringMethods) {
  EXPECT_EQ(render_text("{{ s.startswith('<a') }} {{ s.endswith(('x', 'b>')) }} {{ s.strip('<>') }}", {{"s", "<ab>"}}),
            "True True ab");
  EXPECT_EQ(render_text("[{{ '  x \\n'.strip() }}][{{ '\\nx'.lstrip('\\n') }}][{{ 'x\\n\\n'.rstrip() }}]"), "[x][x][x]");
  EXPECT_EQ(render_text("{{ 'a</t>b</t>c'.split('</t>') }} {{ ' a  b '.split() }} {{ 'a,b,c'.split(',', 1) }}"),
            "['a', 'b', 'c'] ['a', 'b'] ['a', 'b,c']");
  EXPECT_EQ(render_text("{{ 'ab'.upper() }} {{ 'AB'.lower() }} {{ 'hello world'.title() }} {{ 'hELLO'.capitalize() }} "
                        "{{ 'aXa'.replace('a', 'b') }} {{ 'abc'.find('c') }} {{ '-'.join(['a', 'b']) }}"),
            "AB ab Hello World Hello bXb 2 a-b");
}

TEST(JinjaExpr, DictMethods) {
  nlohmann::json ctx = {{"d", {{"a", 1}, {"b", 2}}}};
  EXPECT_EQ(render_text("{{ d.get('a') }} {{ d.get('z') }} {{ d.get('z', 0) }} {{ d.keys() | list }} {{ d.values() | list }} "
                        "{{ d.items() | list }}",
                        ctx),
            "1 None 0 ['a', 'b'] [1, 2] [('a', 1), ('b', 2)]");
}

// Lists the template builds change in place, as under jinja2's SandboxedEnvironment (Kimi K2's
// templates queue call ids so): append() returns None, pop() the item, and every name for the
// list sees the change.
TEST(JinjaExpr, ListsTheTemplateBuiltGrowWithAppendAndShrinkWithPop) {
  EXPECT_EQ(render_text("{% set ns = namespace(ids=[]) %}{% set _ = ns.ids.append('a') %}"
                        "{% set _ = ns.ids.append('b') %}{{ ns.ids }} {{ ns.ids.pop(0) }} {{ ns.ids }} "
                        "{{ ns.ids.pop() }} {{ ns.ids }} {{ [].append(1) }}"),
            "['a', 'b'] a ['b'] b [] None");
  EXPECT_EQ(render_text("{% set xs = [1, 2, 3] %}{% set ys = xs %}{% set _ = ys.append(4) %}"
                        "{{ xs }} {{ xs.pop(-3) }} {{ ys }}"),
            "[1, 2, 3, 4] 2 [1, 3, 4]");
  EXPECT_EQ(render_text("{% set xs = ms | list %}{% set _ = xs.append(3) %}{{ xs }} {{ ms }}", {{"ms", {1, 2}}}),
            "[1, 2, 3] [1, 2]");  // a filter's result is the template's own list
}

TEST(JinjaExpr, GlobalFunctions) {
  EXPECT_EQ(render_text("{{ range(3) | list }} {{ range(1, 7, 2) | list }} {{ range(3, 0, -1) | list }}"),
            "[0, 1, 2] [1, 3, 5] [3, 2, 1]");
  EXPECT_EQ(render_text("{% set d = dict(a=1) %}{{ d.a }}"), "1");
}

TEST(JinjaExpr, StrftimeNowFormatsTheRenderClock) {
  RenderOptions options;
  options.now_s = 1718020800;  // 2024-06-10 12:00 UTC: the same date in every zone within 11 hours
  EXPECT_EQ(render_text("{{ strftime_now('%d %b %Y') }}", nlohmann::json::object(), options), "10 Jun 2024");
}

}  // namespace
}  // namespace strata::jinja
