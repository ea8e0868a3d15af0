// Filters, each against its Jinja2 result.
#include <gtest/gtest.h>

#include "chat/jinja_test_util.h"

namespace strata::jinja {
namespace {

TEST(JinjaFilters, TextFilters) {
  EXPECT_EQ(render_text("[{{ '  a b \\n' | trim }}] [{{ 'xxaxx' | trim('x') }}]"), "[a b] [a]");
  EXPECT_EQ(render_text("{{ 'aBc' | upper }} {{ 'aBc' | lower }} {{ 'hELLO wORLD' | capitalize }} "
                        "{{ \"they're bill's-x (y\" | title }}"),
            "ABC abc Hello world They're Bill's-X (Y");
  EXPECT_EQ(render_text("{{ 'aaa' | replace('a', 'b') }} {{ 'aaa' | replace('a', 'b', 2) }} {{ 42 | string ~ '!' }} "
                        "{{ '<b>' | safe }} {{ '<a&\"b\">' | e }}"),
            "bbb bba 42! <b> &lt;a&amp;&#34;b&#34;&gt;");
}

TEST(JinjaFilters, NumberFilters) {
  EXPECT_EQ(render_text("{{ '42' | int }} {{ ' 7 ' | int }} {{ '3.9' | int }} {{ 'x' | int }} {{ 'x' | int(5) }} "
                        "{{ 2.7 | int }} {{ -2.7 | int }} {{ 'ff' | int(base=16) }}"),
            "42 7 3 0 5 2 -2 255");
  EXPECT_EQ(render_text("{{ '1.5' | float }} {{ 2 | float }} {{ -3 | abs }} {{ 2.5 | round }} {{ 3.14159 | round(2) }} "
                        "{{ 2.1 | round(0, 'ceil') }} {{ 7 | round }}"),
            "1.5 2.0 3 2.0 3.14 3.0 7");
}

TEST(JinjaFilters, ToJsonMatchesPythonJsonDumps) {
  nlohmann::json ctx = {{"v", {{"b", {1, 2.5, nullptr, true}}, {"a", "é\"\n"}, {"e", nlohmann::json::object()}}}};
  EXPECT_EQ(render_text("{{ v | tojson }}", ctx), "{\"a\": \"é\\\"\\n\", \"b\": [1, 2.5, null, true], \"e\": {}}");
  EXPECT_EQ(render_text("{{ v | tojson(indent=2) }}", ctx),
            "{\n  \"a\": \"é\\\"\\n\",\n  \"b\": [\n    1,\n    2.5,\n    null,\n    true\n  ],\n  \"e\": {}\n}");
  EXPECT_EQ(render_text("{{ {'z': 1, 'a': 2} | tojson }} {{ {'z': 1, 'a': 2} | tojson(sort_keys=true) }}"),
            "{\"z\": 1, \"a\": 2} {\"a\": 2, \"z\": 1}");
  EXPECT_EQ(render_text("{{ 'x\\u0001' | tojson }}"), "\"x\\u0001\"");
}

TEST(JinjaFilters, DefaultFilter) {
  EXPECT_EQ(render_text("{{ missing | default('d') }} {{ missing | d('d') }} {{ '' | default('d') }} "
                        "{{ '' | default('d', true) }} {{ none | default('d') }}"),
            "d d  d None");
}

TEST(JinjaFilters, SequenceFilters) {
  nlohmann::json ctx = {{"l", {3, 1, 2}}, {"s", "abc"}};
  EXPECT_EQ(render_text("{{ l | length }} {{ l | count }} {{ s | length }} {{ l | first }} {{ l | last }} {{ s | first }}",
                        ctx),
            "3 3 3 3 2 a");
  EXPECT_EQ(render_text("{{ l | join(', ') }} {{ s | list }} {{ l | sort }} {{ l | sort(reverse=true) }} "
                        "{{ [1, 2, 1] | unique | list }} {{ l | reverse | list }} {{ s | reverse }}",
                        ctx),
            "3, 1, 2 ['a', 'b', 'c'] [1, 2, 3] [3, 2, 1] [1, 2] [2, 1, 3] cba");
  EXPECT_EQ(render_text("{{ l | min }} {{ l | max }} {{ l | sum }} {{ {'b': 1, 'a': 2} | dictsort }} "
                        "{{ {'k': 'v'} | items | list }}",
                        ctx),
            "1 3 6 [('a', 2), ('b', 1)] [('k', 'v')]");
}

TEST(JinjaFilters, AttributeFilters) {
  nlohmann::json ctx = {{"ms",
                         {{{"role", "system"}, {"n", 1}},
                          {{"role", "user"}, {"n", 2}},
                          {{"role", "user"}, {"f", {{"name", "x"}}}}}}};
  EXPECT_EQ(render_text("{{ ms | selectattr('role', 'equalto', 'user') | list | length }} "
                        "{{ ms | rejectattr('role', 'eq', 'user') | map(attribute='role') | list }} "
                        "{{ ms | selectattr('n') | map(attribute='n') | list }} "
                        "{{ ms | map(attribute='f.name', default='-') | join }}",
                        ctx),
            "2 ['system'] [1, 2] --x");
  EXPECT_EQ(render_text("{{ ['a', 'b'] | map('upper') | join }} {{ [1, 2, 3, 4] | select('odd') | list }} "
                        "{{ ms | sort(attribute='role', reverse=true) | map(attribute='role') | first }} "
                        "{{ ms | join(',', attribute='role') }}",
                        ctx),
            "AB [1, 3] user system,user,user");
}

TEST(JinjaFilters, IndentFilter) {
  EXPECT_EQ(render_text("{{ 'a\\nb\\n\\nc' | indent(2) }}"), "a\n  b\n\n  c");
  EXPECT_EQ(render_text("{{ 'a\\nb' | indent(2, true) }}|{{ 'a\\n' | indent }}|"), "  a\n  b|a\n|");
}

}  // namespace
}  // namespace strata::jinja
