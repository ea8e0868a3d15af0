// Internal to the chat module: the recursive-descent Parser shared by jinja_parser.cc
// (statements) and jinja_parse_expr.cc (expressions). One Parser parses one token stream once.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "chat/jinja_ast.h"
#include "chat/jinja_lexer.h"

namespace strata::jinja {

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Result<std::unique_ptr<Template>> parse_template();

 private:
  using ExprPtr = std::unique_ptr<Expr>;

  // Token access.
  const Token& peek(size_t ahead = 0) const;
  const Token& advance() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }
  bool at_op(std::string_view op, size_t ahead = 0) const;
  bool at_name(std::string_view name, size_t ahead = 0) const;
  Status expect_op(std::string_view op);
  Status expect(TokenKind kind, const char* what);
  Result<std::string> expect_identifier(const char* what);
  Status error(const Token& at, const std::string& message) const;
  Status enter(const Token& at);  // counts nesting; pair with `--depth_`

  // Statements (jinja_parser.cc).
  Result<Body> parse_body(const Token& opener, std::string_view block, std::initializer_list<std::string_view> ends,
                          std::string* which_end);
  Status finish_end_tag(std::string_view name);
  Result<std::unique_ptr<Stmt>> parse_statement(const Token& opener);
  Result<std::unique_ptr<Stmt>> parse_if(const Token& opener);
  Result<std::unique_ptr<Stmt>> parse_for(const Token& opener);
  Result<std::unique_ptr<Stmt>> parse_set(const Token& opener);
  Result<std::unique_ptr<Stmt>> parse_macro(const Token& opener);
  Result<std::unique_ptr<Stmt>> parse_filter_block(const Token& opener);
  Result<std::vector<std::string>> parse_targets();

  // Expressions (jinja_parse_expr.cc).
  Result<ExprPtr> parse_expression();
  Result<ExprPtr> parse_tuple(bool allow_condexpr);
  Result<ExprPtr> parse_condexpr();
  // The left-associative binary operators, loosest first; kNot and kCompare sit between kAnd and kSum.
  enum class BinaryLevel { kOr, kAnd, kSum, kConcat, kProduct, kPower };
  Result<ExprPtr> parse_binary(BinaryLevel level);
  Result<ExprPtr> parse_binary_operand(BinaryLevel level);
  bool at_binary_op(BinaryLevel level) const;
  Result<ExprPtr> parse_not();
  Result<ExprPtr> parse_compare();
  Result<ExprPtr> parse_unary(bool with_filter);
  Result<ExprPtr> parse_primary();
  Result<ExprPtr> parse_list_or_tuple(const Token& open, std::string_view close, ExprKind kind);
  Result<ExprPtr> parse_dict(const Token& open);
  Result<ExprPtr> parse_postfix(ExprPtr node);
  Result<ExprPtr> parse_subscript(ExprPtr node);
  Result<ExprPtr> parse_filter_expr(ExprPtr node);
  Result<ExprPtr> parse_call(ExprPtr callee);
  Result<ExprPtr> parse_filter(ExprPtr input);
  Result<ExprPtr> parse_test(ExprPtr input);
  Status parse_call_args(Expr* call);

  static ExprPtr make_expr(ExprKind kind, const Token& at);

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  int loop_depth_ = 0;  // break/continue are only valid inside a for loop
};

}  // namespace strata::jinja
