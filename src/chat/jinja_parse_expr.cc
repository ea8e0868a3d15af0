// Expression grammar, following Jinja2's precedence (lowest first):
//   a if c else b  <  or  <  and  <  not  <  comparisons (== != < > <= >= in, not in)
//   <  + -  <  ~  <  * / // %  <  **  <  unary - +  <  primary with . [] () | is
#include <array>
#include <string_view>

#include "chat/jinja_filters.h"
#include "chat/jinja_parser_impl.h"
#include "chat/jinja_predicates.h"

namespace strata::jinja {

Parser::ExprPtr Parser::make_expr(ExprKind kind, const Token& at) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->line = at.line;
  e->column = at.column;
  return e;
}

namespace {

std::unique_ptr<Expr> binary(std::string op, std::unique_ptr<Expr> left, std::unique_ptr<Expr> right) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kBinary;
  e->line = left->line;
  e->column = left->column;
  e->name = std::move(op);
  e->children.push_back(std::move(left));
  e->children.push_back(std::move(right));
  return e;
}

// Indexed by Parser::BinaryLevel. Keyword operators are name tokens, the rest operator tokens.
struct BinaryOps {
  TokenKind kind;
  std::array<std::string_view, 4> ops;  // unused slots are empty
};
constexpr BinaryOps kBinaryOps[] = {
    {TokenKind::kName, {"or"}},
    {TokenKind::kName, {"and"}},
    {TokenKind::kOp, {"+", "-"}},
    {TokenKind::kOp, {"~"}},
    {TokenKind::kOp, {"*", "/", "//", "%"}},
    {TokenKind::kOp, {"**"}},
};

}  // namespace

Result<Parser::ExprPtr> Parser::parse_expression() {
  STRATA_RETURN_IF_ERROR(enter(peek()));
  Result<ExprPtr> e = parse_condexpr();
  --depth_;
  return e;
}

// `a, b` without brackets (in {{ }}, set and for) builds a tuple.
Result<Parser::ExprPtr> Parser::parse_tuple(bool allow_condexpr) {
  const Token& start = peek();
  STRATA_RETURN_IF_ERROR(enter(start));
  std::vector<ExprPtr> items;
  bool saw_comma = false;
  while (true) {
    Result<ExprPtr> item = allow_condexpr ? parse_condexpr() : parse_binary(BinaryLevel::kOr);
    if (!item.ok()) return item.status();
    items.push_back(std::move(item).value());
    if (!at_op(",")) break;
    saw_comma = true;
    advance();
    const Token& t = peek();
    if (t.kind == TokenKind::kVarEnd || t.kind == TokenKind::kBlockEnd || at_name("if") || at_op(")")) {
      break;
    }
  }
  --depth_;
  if (!saw_comma) return std::move(items[0]);
  auto tuple = make_expr(ExprKind::kTuple, start);
  tuple->children = std::move(items);
  return tuple;
}

Result<Parser::ExprPtr> Parser::parse_condexpr() {
  STRATA_ASSIGN_OR_RETURN(ExprPtr expr, parse_binary(BinaryLevel::kOr));
  while (at_name("if")) {
    advance();
    auto cond = make_expr(ExprKind::kCondExpr, peek());
    STRATA_ASSIGN_OR_RETURN(ExprPtr test, parse_binary(BinaryLevel::kOr));
    ExprPtr otherwise;
    if (at_name("else")) {
      advance();
      STRATA_ASSIGN_OR_RETURN(otherwise, parse_expression());
    }
    cond->line = expr->line;
    cond->column = expr->column;
    cond->children.push_back(std::move(expr));
    cond->children.push_back(std::move(test));
    cond->children.push_back(std::move(otherwise));
    expr = std::move(cond);
  }
  return expr;
}

Result<Parser::ExprPtr> Parser::parse_binary(BinaryLevel level) {
  STRATA_ASSIGN_OR_RETURN(ExprPtr left, parse_binary_operand(level));
  while (at_binary_op(level)) {
    std::string op = advance().text;
    STRATA_ASSIGN_OR_RETURN(ExprPtr right, parse_binary_operand(level));
    left = binary(std::move(op), std::move(left), std::move(right));
  }
  return left;
}

Result<Parser::ExprPtr> Parser::parse_binary_operand(BinaryLevel level) {
  switch (level) {
    case BinaryLevel::kOr: return parse_binary(BinaryLevel::kAnd);
    case BinaryLevel::kAnd: return parse_not();
    case BinaryLevel::kSum: return parse_binary(BinaryLevel::kConcat);
    case BinaryLevel::kConcat: return parse_binary(BinaryLevel::kProduct);
    case BinaryLevel::kProduct: return parse_binary(BinaryLevel::kPower);
    case BinaryLevel::kPower: return parse_unary(true);
  }
  return parse_unary(true);
}

bool Parser::at_binary_op(BinaryLevel level) const {
  static_assert(std::size(kBinaryOps) == static_cast<size_t>(BinaryLevel::kPower) + 1);
  const BinaryOps& level_ops = kBinaryOps[static_cast<size_t>(level)];
  const Token& t = peek();
  if (t.kind != level_ops.kind) return false;
  for (std::string_view op : level_ops.ops) {
    if (!op.empty() && t.text == op) return true;
  }
  return false;
}

Result<Parser::ExprPtr> Parser::parse_not() {
  if (!at_name("not")) return parse_compare();
  const Token& at = advance();
  STRATA_RETURN_IF_ERROR(enter(at));
  auto e = make_expr(ExprKind::kUnary, at);
  e->name = "not";
  Result<ExprPtr> operand = parse_not();
  --depth_;
  if (!operand.ok()) return operand.status();
  e->children.push_back(std::move(operand).value());
  return e;
}

Result<Parser::ExprPtr> Parser::parse_compare() {
  STRATA_ASSIGN_OR_RETURN(ExprPtr first, parse_binary(BinaryLevel::kSum));
  ExprPtr cmp;
  while (true) {
    std::string op;
    if (peek().kind == TokenKind::kOp) {
      for (std::string_view candidate : {"==", "!=", "<", ">", "<=", ">="}) {
        if (peek().text == candidate) op = candidate;
      }
      if (!op.empty()) advance();
    } else if (at_name("in")) {
      op = "in";
      advance();
    } else if (at_name("not") && at_name("in", 1)) {
      op = "not in";
      advance();
      advance();
    }
    if (op.empty()) break;
    if (!cmp) {
      cmp = make_expr(ExprKind::kCompare, peek());
      cmp->line = first->line;
      cmp->column = first->column;
      cmp->children.push_back(std::move(first));
    }
    STRATA_ASSIGN_OR_RETURN(ExprPtr right, parse_binary(BinaryLevel::kSum));
    cmp->ops.push_back(std::move(op));
    cmp->children.push_back(std::move(right));
  }
  return cmp ? std::move(cmp) : std::move(first);
}

Result<Parser::ExprPtr> Parser::parse_unary(bool with_filter) {
  const Token& at = peek();
  STRATA_RETURN_IF_ERROR(enter(at));
  ExprPtr node;
  if (at_op("-") || at_op("+")) {
    node = make_expr(ExprKind::kUnary, at);
    node->name = advance().text;
    Result<ExprPtr> operand = parse_unary(false);
    if (!operand.ok()) return operand.status();
    node->children.push_back(std::move(operand).value());
  } else {
    STRATA_ASSIGN_OR_RETURN(node, parse_primary());
    STRATA_ASSIGN_OR_RETURN(node, parse_postfix(std::move(node)));
  }
  if (with_filter) {
    STRATA_ASSIGN_OR_RETURN(node, parse_filter_expr(std::move(node)));
  }
  --depth_;
  return node;
}

Result<Parser::ExprPtr> Parser::parse_primary() {
  const Token& t = peek();
  switch (t.kind) {
    case TokenKind::kName: {
      advance();
      auto e = make_expr(ExprKind::kLiteral, t);
      if (t.text == "true" || t.text == "True") {
        e->literal = Value::Bool(true);
      } else if (t.text == "false" || t.text == "False") {
        e->literal = Value::Bool(false);
      } else if (t.text == "none" || t.text == "None") {
        e->literal = Value::None();
      } else {
        e->kind = ExprKind::kName;
        e->name = t.text;
      }
      return e;
    }
    case TokenKind::kString: {
      auto e = make_expr(ExprKind::kLiteral, t);
      std::string text;
      while (peek().kind == TokenKind::kString) text += advance().text;  // "a" "b" concatenates
      e->literal = Value::String(std::move(text));
      return e;
    }
    case TokenKind::kInt:
    case TokenKind::kFloat: {
      advance();
      auto e = make_expr(ExprKind::kLiteral, t);
      e->literal = t.kind == TokenKind::kInt ? Value::Int(t.int_value) : Value::Float(t.float_value);
      return e;
    }
    case TokenKind::kOp:
      if (t.text == "(") {
        advance();
        if (at_op(")")) {
          advance();
          return make_expr(ExprKind::kTuple, t);
        }
        STRATA_ASSIGN_OR_RETURN(ExprPtr inner, parse_tuple(true));
        STRATA_RETURN_IF_ERROR(expect_op(")"));
        return inner;
      }
      if (t.text == "[") return parse_list_or_tuple(advance(), "]", ExprKind::kList);
      if (t.text == "{") return parse_dict(advance());
      break;
    default:
      break;
  }
  if (t.kind == TokenKind::kVarEnd || t.kind == TokenKind::kBlockEnd || t.kind == TokenKind::kEnd) {
    return error(t, "expected an expression, found the end of the tag");
  }
  return error(t, "unexpected '" + t.text + "' in expression");
}

Result<Parser::ExprPtr> Parser::parse_list_or_tuple(const Token& open, std::string_view close, ExprKind kind) {
  auto e = make_expr(kind, open);
  while (!at_op(close)) {
    STRATA_ASSIGN_OR_RETURN(ExprPtr item, parse_expression());
    e->children.push_back(std::move(item));
    if (!at_op(",")) break;
    advance();
  }
  STRATA_RETURN_IF_ERROR(expect_op(close));
  return e;
}

Result<Parser::ExprPtr> Parser::parse_dict(const Token& open) {
  auto e = make_expr(ExprKind::kDict, open);
  while (!at_op("}")) {
    STRATA_ASSIGN_OR_RETURN(ExprPtr key, parse_expression());
    STRATA_RETURN_IF_ERROR(expect_op(":"));
    STRATA_ASSIGN_OR_RETURN(ExprPtr value, parse_expression());
    e->children.push_back(std::move(key));
    e->children.push_back(std::move(value));
    if (!at_op(",")) break;
    advance();
  }
  STRATA_RETURN_IF_ERROR(expect_op("}"));
  return e;
}

Result<Parser::ExprPtr> Parser::parse_postfix(ExprPtr node) {
  while (true) {
    if (at_op(".") || at_op("[")) {
      STRATA_ASSIGN_OR_RETURN(node, parse_subscript(std::move(node)));
    } else if (at_op("(")) {
      STRATA_ASSIGN_OR_RETURN(node, parse_call(std::move(node)));
    } else {
      return node;
    }
  }
}

Result<Parser::ExprPtr> Parser::parse_subscript(ExprPtr node) {
  const Token& open = advance();
  if (open.text == ".") {
    const Token& attr = advance();
    if (attr.kind == TokenKind::kName) {
      auto e = make_expr(ExprKind::kGetAttr, attr);
      e->name = attr.text;
      e->children.push_back(std::move(node));
      return e;
    }
    if (attr.kind != TokenKind::kInt) return error(attr, "expected an attribute name after '.'");
    auto e = make_expr(ExprKind::kGetItem, attr);
    auto index = make_expr(ExprKind::kLiteral, attr);
    index->literal = Value::Int(attr.int_value);
    e->children.push_back(std::move(node));
    e->children.push_back(std::move(index));
    return e;
  }
  auto e = make_expr(ExprKind::kGetItem, open);
  e->children.push_back(std::move(node));
  ExprPtr bounds[3];
  if (!at_op(":")) {
    STRATA_ASSIGN_OR_RETURN(bounds[0], parse_expression());
  }
  if (at_op(":")) {
    e->kind = ExprKind::kSlice;
    advance();
    if (!at_op("]") && !at_op(":")) {
      STRATA_ASSIGN_OR_RETURN(bounds[1], parse_expression());
    }
    if (at_op(":")) {
      advance();
      if (!at_op("]")) {
        STRATA_ASSIGN_OR_RETURN(bounds[2], parse_expression());
      }
    }
  }
  STRATA_RETURN_IF_ERROR(expect_op("]"));
  e->children.push_back(std::move(bounds[0]));
  if (e->kind == ExprKind::kSlice) {
    e->children.push_back(std::move(bounds[1]));
    e->children.push_back(std::move(bounds[2]));
  }
  return e;
}

Result<Parser::ExprPtr> Parser::parse_filter_expr(ExprPtr node) {
  while (true) {
    if (at_op("|")) {
      advance();
      STRATA_ASSIGN_OR_RETURN(node, parse_filter(std::move(node)));
    } else if (at_name("is")) {
      advance();
      STRATA_ASSIGN_OR_RETURN(node, parse_test(std::move(node)));
    } else if (at_op("(") && node) {
      STRATA_ASSIGN_OR_RETURN(node, parse_call(std::move(node)));
    } else {
      return node;
    }
  }
}

Result<Parser::ExprPtr> Parser::parse_call(ExprPtr callee) {
  auto call = make_expr(ExprKind::kCall, peek());
  call->line = callee->line;  // errors point at the callee's name, not the parenthesis
  call->column = callee->column;
  call->children.push_back(std::move(callee));
  STRATA_RETURN_IF_ERROR(parse_call_args(call.get()));
  return call;
}

// After `|`: name [ (args) ].
Result<Parser::ExprPtr> Parser::parse_filter(ExprPtr input) {
  const Token& name = peek();
  STRATA_ASSIGN_OR_RETURN(std::string filter, expect_identifier("a filter name"));
  if (!is_known_filter(filter)) return error(name, "unknown filter '" + filter + "'");
  auto e = make_expr(ExprKind::kFilter, name);
  e->name = std::move(filter);
  e->children.push_back(std::move(input));
  if (at_op("(")) STRATA_RETURN_IF_ERROR(parse_call_args(e.get()));
  return e;
}

// After `is`: [not] name [ (args) | one bare argument ].
Result<Parser::ExprPtr> Parser::parse_test(ExprPtr input) {
  bool negated = at_name("not");
  if (negated) advance();
  const Token& name = peek();
  STRATA_ASSIGN_OR_RETURN(std::string test, expect_identifier("a test name"));
  if (!is_known_test(test)) return error(name, "unknown test '" + test + "'");
  auto e = make_expr(ExprKind::kTest, name);
  e->name = std::move(test);
  e->negated = negated;
  e->children.push_back(std::move(input));
  if (at_op("(")) {
    STRATA_RETURN_IF_ERROR(parse_call_args(e.get()));
    return e;
  }
  const Token& t = peek();
  bool starts_arg = t.kind == TokenKind::kString || t.kind == TokenKind::kInt || t.kind == TokenKind::kFloat ||
                    at_op("[") || at_op("{");
  if (t.kind == TokenKind::kName) {
    starts_arg = true;
    for (std::string_view keyword : {"else", "or", "and", "if", "not", "in", "is"}) {
      if (t.text == keyword) starts_arg = false;
    }
  }
  if (starts_arg) {
    STRATA_ASSIGN_OR_RETURN(ExprPtr arg, parse_primary());
    STRATA_ASSIGN_OR_RETURN(arg, parse_postfix(std::move(arg)));
    e->children.push_back(std::move(arg));
  }
  return e;
}

// `(` positional..., name=value... `)`; the arguments go after the node's existing children.
Status Parser::parse_call_args(Expr* call) {
  STRATA_RETURN_IF_ERROR(expect_op("("));
  while (!at_op(")")) {
    if (at_op("*") || at_op("**")) return error(peek(), "*args and **kwargs are not supported");
    if (peek().kind == TokenKind::kName && at_op("=", 1)) {
      std::string key = advance().text;
      advance();
      STRATA_ASSIGN_OR_RETURN(ExprPtr value, parse_expression());
      call->kwargs.emplace_back(std::move(key), std::move(value));
    } else {
      if (!call->kwargs.empty()) return error(peek(), "positional argument follows keyword argument");
      STRATA_ASSIGN_OR_RETURN(ExprPtr value, parse_expression());
      call->children.push_back(std::move(value));
    }
    if (!at_op(",")) break;
    advance();
  }
  return expect_op(")");
}

}  // namespace strata::jinja
