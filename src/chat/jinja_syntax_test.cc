// Template syntax: output, comments, whitespace control, statements and scoping.
#include <gtest/gtest.h>

#include "chat/jinja_test_util.h"

namespace strata::jinja {
namespace {

TEST(JinjaSyntax, PrintsTextAndExpressions) {
  EXPECT_EQ(render_text("Hello {{ name }}!", {{"name", "world"}}), "Hello world!");
  EXPECT_EQ(render_text("{{ 'a' }}{{ \"b\" }}{{ 1 }}{{ 2.5 }}"), "ab12.5");
}

TEST(JinjaSyntax, DropsComments) {
  EXPECT_EQ(render_text("a{# note {{ x }} #}b"), "ab");
}

TEST(JinjaSyntax, DashStripsWhitespaceOnTheMarkedSide) {
  EXPECT_EQ(render_text("a  \n  {{- 'b' -}}  \n  c"), "abc");
  EXPECT_EQ(render_text("a \n {%- if true %}b{% endif -%} \n c"), "abc");
  EXPECT_EQ(render_text("a \n{#- c -#}\n b"), "ab");
}

TEST(JinjaSyntax, TrimBlocksDropsOneNewlineAfterBlockTagsOnly) {
  EXPECT_EQ(render_text("{% if true %}\nx\n{% endif %}\n\ny"), "x\n\ny");
  EXPECT_EQ(render_text("{{ 'v' }}\nz"), "v\nz");
  EXPECT_EQ(render_text("{# c #}\nz"), "z");
}

TEST(JinjaSyntax, LstripBlocksRemovesIndentBeforeBlockTags) {
  EXPECT_EQ(render_text("<\n    {% if true %}\n    x\n    {% endif %}\n>"), "<\n    x\n>");
  // Only whitespace from the line start counts; variable tags keep their indent.
  EXPECT_EQ(render_text("a  {% if true %}b{% endif %}"), "a  b");
  EXPECT_EQ(render_text("  {{ 'v' }}"), "  v");
  EXPECT_EQ(render_text("  {%+ if true %}b{% endif %}"), "  b");
}

TEST(JinjaSyntax, RawBlocksPassThroughUnparsed) {
  EXPECT_EQ(render_text("{% raw %}{{ not parsed }}{% endraw %}"), "{{ not parsed }}");
  // Jinja2 keeps the newline after the raw opening tag but trims the one after endraw.
  EXPECT_EQ(render_text("x\n  {% raw %}\n  {{ a }}\n  {% endraw %}\ny"), "x\n\n  {{ a }}\ny");
}

TEST(JinjaSyntax, IfElifElse) {
  const char* source = "{% if n > 1 %}many{% elif n == 1 %}one{% else %}none{% endif %}";
  EXPECT_EQ(render_text(source, {{"n", 3}}), "many");
  EXPECT_EQ(render_text(source, {{"n", 1}}), "one");
  EXPECT_EQ(render_text(source, {{"n", 0}}), "none");
}

TEST(JinjaSyntax, ForExposesLoopVariables) {
  EXPECT_EQ(render_text("{% for x in xs %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}"
                        "{{ loop.first }}{{ loop.last }}{{ loop.length }}|{% endfor %}",
                        {{"xs", {"a", "b"}}}),
            "1021TrueFalse2|2110FalseTrue2|");
  EXPECT_EQ(render_text("{% for x in xs %}{{ loop.previtem | default('^') }}{{ x }}{{ loop.nextitem | default('$') }} "
                        "{% endfor %}",
                        {{"xs", {1, 2, 3}}}),
            "^12 123 23$ ");
}

TEST(JinjaSyntax, ForFiltersItemsBeforeCountingThem) {
  EXPECT_EQ(render_text("{% for x in xs if x is odd %}{{ x }}/{{ loop.length }} {% endfor %}", {{"xs", {1, 2, 3, 4, 5}}}),
            "1/3 3/3 5/3 ");
}

TEST(JinjaSyntax, ForElseRunsWhenNothingIterates) {
  EXPECT_EQ(render_text("{% for x in xs %}{{ x }}{% else %}empty{% endfor %}", {{"xs", nlohmann::json::array()}}),
            "empty");
  EXPECT_EQ(render_text("{% for x in missing %}{{ x }}{% else %}empty{% endfor %}"), "empty");
}

TEST(JinjaSyntax, ForUnpacksPairsAndIteratesDictKeys) {
  nlohmann::json ctx = {{"d", {{"a", 1}, {"b", 2}}}};
  EXPECT_EQ(render_text("{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}", ctx), "a=1;b=2;");
  EXPECT_EQ(render_text("{% for k in d %}{{ k }}{% endfor %}", ctx), "ab");
  EXPECT_EQ(render_text("{% for c in 'hé!' %}[{{ c }}]{% endfor %}"), "[h][é][!]");
}

TEST(JinjaSyntax, BreakAndContinue) {
  EXPECT_EQ(render_text("{% for i in range(10) %}{% if i == 1 %}{% continue %}{% endif %}{% if i == 4 %}{% break %}"
                        "{% endif %}{{ i }}{% endfor %}"),
            "023");
}

TEST(JinjaSyntax, SetInsideLoopStaysLocalButNamespaceEscapes) {
  EXPECT_EQ(render_text("{% set n = 0 %}{% for i in range(3) %}{% set n = n + 1 %}{{ n }}{% endfor %}{{ n }}"), "1110");
  EXPECT_EQ(render_text("{% set ns = namespace(n=0) %}{% for i in range(3) %}{% set ns.n = ns.n + 1 %}{% endfor %}"
                        "{{ ns.n }}"),
            "3");
  EXPECT_EQ(render_text("{% if true %}{% set x = 5 %}{% endif %}{{ x }}"), "5");
}

TEST(JinjaSyntax, SetUnpacksTuples) {
  EXPECT_EQ(render_text("{% set a, b = 1, 'two' %}{{ b }}{{ a }}"), "two1");
}

TEST(JinjaSyntax, BlockSetCapturesOutputAndAppliesFilters) {
  EXPECT_EQ(render_text("{% set body %} Hi {{ name }} {% endset %}[{{ body }}]", {{"name", "x"}}), "[ Hi x ]");
  EXPECT_EQ(render_text("{% set body | trim | upper %} hi {% endset %}[{{ body }}]"), "[HI]");
}

TEST(JinjaSyntax, MacrosTakeDefaultsAndKeywordArguments) {
  const char* source =
      "{% macro greet(name, greeting='Hello') %}{{ greeting }}, {{ name }}!{% endmacro %}"
      "{{ greet('Ann') }} {{ greet('Bob', greeting='Hi') }} {{ greet(name='Cy') }}";
  EXPECT_EQ(render_text(source), "Hello, Ann! Hi, Bob! Hello, Cy!");
}

TEST(JinjaSyntax, MacrosRecurseAndSeeTopLevelVariables) {
  const char* source =
      "{% set sep = '.' %}{% macro count(n) %}{% if n > 0 %}{{ n }}{{ sep }}{{ count(n - 1) }}{% endif %}{% endmacro %}"
      "{{ count(3) }}";
  EXPECT_EQ(render_text(source), "3.2.1.");
}

TEST(JinjaSyntax, FilterBlocksFilterTheirBody) {
  EXPECT_EQ(render_text("{% filter upper %}abc{{ 'd' }}{% endfilter %}"), "ABCD");
}

TEST(JinjaSyntax, GenerationBlocksRenderTheirBody) {
  EXPECT_EQ(render_text("{% generation %}x{% endgeneration %}"), "x");
}

// Gemma 4's templates write a tool call's arguments with a recursive macro that takes a keyword
// argument with a default, walks mappings in key order (dictsort), tells strings, booleans,
// mappings and sequences apart with tests, and wraps strings in <|"|> marks.
TEST(JinjaSyntax, RecursiveMacroWithADefaultKeywordWalksNestedArguments) {
  constexpr std::string_view kSource =
      "{%- macro arg(v, quote_keys=True) -%}"
      "{%- if v is string -%}{{- '<|\"|>' + v + '<|\"|>' -}}"
      "{%- elif v is boolean -%}{{- 'true' if v else 'false' -}}"
      "{%- elif v is mapping -%}{{- '{' -}}{%- set ns = namespace(first=true) -%}"
      "{%- for key, value in v | dictsort -%}{%- if not ns.first %},{% endif -%}{%- set ns.first = false -%}"
      "{%- if quote_keys -%}{{- '<|\"|>' + key + '<|\"|>' -}}{%- else -%}{{- key -}}{%- endif -%}"
      ":{{- arg(value, quote_keys=quote_keys) -}}{%- endfor -%}{{- '}' -}}"
      "{%- elif v is sequence -%}{{- '[' -}}{%- for item in v -%}{{- arg(item, quote_keys=quote_keys) -}}"
      "{%- if not loop.last %},{% endif -%}{%- endfor -%}{{- ']' -}}"
      "{%- else -%}{{- v -}}{%- endif -%}"
      "{%- endmacro -%}"
      "<|tool_call>call:{{ name }}{{ arg(args, quote_keys=False) }}<tool_call|>";
  const nlohmann::json context = nlohmann::json::parse(
      R"({"name": "plan", "args": {"steps": [{"go": true, "n": 2}], "city": "Paris", "ok": false}})");
  EXPECT_EQ(render_text(kSource, context),
            "<|tool_call>call:plan{city:<|\"|>Paris<|\"|>,ok:false,steps:[{go:true,n:2}]}<tool_call|>");
}

}  // namespace
}  // namespace strata::jinja
