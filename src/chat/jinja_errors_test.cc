// Bad templates and hostile ones fail with a Status naming what and where, never a crash.
#include <gtest/gtest.h>

#include "chat/jinja_test_util.h"

namespace strata::jinja {
namespace {

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

#define EXPECT_CONTAINS(haystack, needle) EXPECT_TRUE(contains(haystack, needle)) << (haystack)

TEST(JinjaErrors, UnknownFilterAndTestFailAtParseNamingThePosition) {
  std::string e = render_error("line one\n{{ x | frobnicate }}");
  EXPECT_CONTAINS(e, "unknown filter 'frobnicate'");
  EXPECT_CONTAINS(e, "line 2, column 8");
  EXPECT_CONTAINS(render_error("{{ x is shiny }}"), "unknown test 'shiny'");
}

TEST(JinjaErrors, UnclosedBlocksNameTheBlockAndWhereItOpened) {
  std::string e = render_error("ab\n  {% for x in y %}{{ x }}");
  EXPECT_CONTAINS(e, "unclosed 'for' block");
  EXPECT_CONTAINS(e, "endfor");
  EXPECT_CONTAINS(e, "line 2, column 3");
  EXPECT_CONTAINS(render_error("{% if a %}x{% else %}y"), "unclosed 'if' block");
  EXPECT_CONTAINS(render_error("{% macro m() %}x"), "unclosed 'macro' block");
}

TEST(JinjaErrors, LexicalErrors) {
  EXPECT_CONTAINS(render_error("{{ x "), "unclosed tag '{{'");
  EXPECT_CONTAINS(render_error("{% if x "), "unclosed tag '{%'");
  EXPECT_CONTAINS(render_error("{# note"), "unclosed comment");
  EXPECT_CONTAINS(render_error("{{ 'abc }}"), "unterminated string");
  EXPECT_CONTAINS(render_error("{{ a ? b }}"), "unexpected character '?'");
  EXPECT_CONTAINS(render_error("{{ (a }}"), "unexpected '}'");
  EXPECT_CONTAINS(render_error("{{ a) }}"), "unexpected ')'");
  EXPECT_CONTAINS(render_error("{{ 99999999999999999999 }}"), "too large");
}

TEST(JinjaErrors, SyntaxErrors) {
  EXPECT_CONTAINS(render_error("{% endif %}"), "'endif' without a matching block");
  EXPECT_CONTAINS(render_error("{% include 'x' %}"), "'include' tag is not supported");
  EXPECT_CONTAINS(render_error("{% frob %}"), "unknown tag 'frob'");
  EXPECT_CONTAINS(render_error("{% break %}"), "'break' outside a for loop");
  EXPECT_CONTAINS(render_error("{{ }}"), "expected an expression");
  EXPECT_CONTAINS(render_error("{% for x y %}{% endfor %}"), "expected 'in'");
  EXPECT_CONTAINS(render_error("{% set x %}"), "unclosed 'set' block");
}

TEST(JinjaErrors, RaiseExceptionSurfacesTheMessage) {
  std::string e = render_error("ok{{ raise_exception('Roles must alternate!') }}");
  EXPECT_CONTAINS(e, "Roles must alternate!");
  EXPECT_CONTAINS(e, "line 1, column 6");
}

TEST(JinjaErrors, TypeErrorsNameTheOperation) {
  EXPECT_CONTAINS(render_error("{{ 1 + 'a' }}"), "unsupported operand type(s) for +: 'int' and 'str'");
  EXPECT_CONTAINS(render_error("{{ 1 / 0 }}"), "division by zero");
  EXPECT_CONTAINS(render_error("{{ 1 < 'a' }}"), "'<' not supported");
  EXPECT_CONTAINS(render_error("{% for x in 5 %}{% endfor %}"), "'int' object is not iterable");
  EXPECT_CONTAINS(render_error("{{ 9223372036854775807 + 1 }}"), "integer overflow");
}

TEST(JinjaErrors, UndefinedValuesFailWhenRead) {
  EXPECT_CONTAINS(render_error("{{ message.content }}"), "'message' is undefined");
  EXPECT_CONTAINS(render_error("{{ m.a.b }}", {{"m", nlohmann::json::object()}}), "'m.a' is undefined");
  EXPECT_CONTAINS(render_error("{{ nofunc(1) }}"), "'nofunc' is undefined");
  EXPECT_CONTAINS(render_error("{{ missing + 1 }}"), "undefined value");
}

TEST(JinjaErrors, TemplatesCannotModifyTheirInputs) {
  EXPECT_CONTAINS(render_error("{{ xs.append(1) }}", {{"xs", {1}}}), "templates cannot modify values");
  EXPECT_CONTAINS(render_error("{{ m.xs.pop() }}", {{"m", {{"xs", {1}}}}}), "'pop' on a list the template was given");
  EXPECT_CONTAINS(render_error("{% set x = 1 %}{% set x.a = 2 %}"), "is not a namespace");
}

// Of the mutating methods only a built list's append() and pop() run; misuse fails cleanly.
TEST(JinjaErrors, OnlyAppendAndPopChangeAListAndMisuseFails) {
  EXPECT_CONTAINS(render_error("{{ (1, 2).append(3) }}"), "'append' on a tuple");
  EXPECT_CONTAINS(render_error("{{ [1].extend([2]) }}"), "templates cannot modify values ('extend' on a list)");
  EXPECT_CONTAINS(render_error("{{ {'a': 1}.pop('a') }}"), "templates cannot modify values ('pop' on a dict)");
  EXPECT_CONTAINS(render_error("{{ [].pop() }}"), "pop from empty list");
  EXPECT_CONTAINS(render_error("{{ [1].pop(1) }}"), "pop index out of range");
  EXPECT_CONTAINS(render_error("{{ [1].pop(-2) }}"), "pop index out of range");
  EXPECT_CONTAINS(render_error("{{ [].append(1, 2) }}"), "append");
  EXPECT_CONTAINS(render_error("{{ [].append() }}"), "exactly one argument");
  EXPECT_CONTAINS(render_error("{{ [1].pop('a') }}"), "index");
}

// A list that holds itself prints, compares and renders within the usual bounds, and the render
// frees it (the sanitized build's leak check sees to that).
TEST(JinjaErrors, AListAppendedToItselfEndsAndIsFreed) {
  EXPECT_EQ(render_text("{% set xs = [1] %}{% set _ = xs.append(xs) %}{{ xs | length }} {{ xs[1][1][0] }}"), "2 1");
  EXPECT_CONTAINS(render_error("{% set xs = [] %}{% set _ = xs.append(xs) %}{{ xs | tojson }}"), "nested too deeply");
}

TEST(JinjaErrors, RunawayRecursionFailsCleanly) {
  std::string e = render_error("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}");
  EXPECT_CONTAINS(e, "nested deeper than");
}

TEST(JinjaErrors, ExplodingOutputFailsCleanly) {
  RenderOptions options;
  options.limits.max_output_bytes = 1 << 20;
  std::string e = render_error("{% for i in range(100000) %}{% for j in range(100000) %}xxxxxxxx{% endfor %}{% endfor %}",
                               nlohmann::json::object(), options);
  EXPECT_CONTAINS(e, "output exceeds 1048576 bytes");
}

TEST(JinjaErrors, EndlessWorkFailsOnTheStepBudget) {
  RenderOptions options;
  options.limits.max_steps = 100000;
  std::string e = render_error("{% for i in range(1000000) %}{% set x = i * 2 %}{% endfor %}", nlohmann::json::object(),
                               options);
  EXPECT_CONTAINS(e, "exceeded 100000 evaluation steps");
}

TEST(JinjaErrors, WorkOnLargeValuesCountsAgainstTheStepBudget) {
  RenderOptions options;
  options.limits.max_steps = 1000000;
  // 10000 passes over a 1 MB string: few operations, but about 4e7 steps of work.
  std::string e = render_error("{% set s = 'x' * 1000000 %}{% for i in range(10000) %}{{ s | length }}{% endfor %}",
                               nlohmann::json::object(), options);
  EXPECT_CONTAINS(e, "exceeded 1000000 evaluation steps");
  EXPECT_EQ(render_text("{% set s = 'x' * 1000000 %}{% for i in range(3) %}{{ s | length }}{% endfor %}",
                        nlohmann::json::object(), options),
            "100000010000001000000");
}

TEST(JinjaErrors, HugeValuesAreRefusedBeforeTheyAreBuilt) {
  EXPECT_CONTAINS(render_error("{{ 'a' * 1000000000000 }}"), "exceeds the template's limit");
  EXPECT_CONTAINS(render_error("{{ [1] * 1000000000000 }}"), "list repetition exceeds");
  EXPECT_CONTAINS(render_error("{{ range(10000000000) }}"), "range of more than");
  EXPECT_CONTAINS(render_error("{% set ns = namespace(s='xxxxxxxxxxxxxxxx') %}{% for i in range(40) %}"
                               "{% set ns.s = ns.s ~ ns.s %}{% endfor %}"),
                  "exceeds the template's limit");
  EXPECT_CONTAINS(render_error("{{ ('x' * 1000000) | replace('x', 'yyyyyyyyyyyyyyyyyyyyyyyyyyyy') }}"),
                  "exceeds the template's limit");
}

TEST(JinjaErrors, DeepNestingIsRefusedWhileParsing) {
  std::string deep = "{{ " + std::string(5000, '(') + "1" + std::string(5000, ')') + " }}";
  EXPECT_CONTAINS(render_error(deep), "nesting deeper than");
  std::string blocks;
  for (int i = 0; i < 2000; ++i) blocks += "{% if true %}";
  EXPECT_CONTAINS(render_error(blocks), "nesting deeper than");
  std::string nots = "{{ " + std::string(2000 * 4, ' ') + " }}";
  for (int i = 0; i < 2000; ++i) nots.replace(3 + i * 4, 4, "not ");
  EXPECT_CONTAINS(render_error(nots), "nesting deeper than");
}

TEST(JinjaErrors, CircularNamespacesDoNotHangPrintingOrComparing) {
  EXPECT_EQ(render_text("{% set ns = namespace() %}{% set ns.me = [ns] %}{{ ns.me }} {{ ns == ns }}"),
            "[<Namespace>] True");
  EXPECT_CONTAINS(render_error("{% set ns = namespace() %}{{ ns | tojson }}"), "not JSON serializable");
}

}  // namespace
}  // namespace strata::jinja
