#include "chat/jinja_parser.h"

#include "chat/jinja_parser_impl.h"

namespace strata::jinja {

const Token& Parser::peek(size_t ahead) const {
  size_t i = pos_ + ahead;
  return i < tokens_.size() ? tokens_[i] : tokens_.back();
}

bool Parser::at_op(std::string_view op, size_t ahead) const {
  const Token& t = peek(ahead);
  return t.kind == TokenKind::kOp && t.text == op;
}

bool Parser::at_name(std::string_view name, size_t ahead) const {
  const Token& t = peek(ahead);
  return t.kind == TokenKind::kName && t.text == name;
}

Status Parser::error(const Token& at, const std::string& message) const {
  return Status::InvalidArgument("template line " + std::to_string(at.line) + ", column " + std::to_string(at.column) +
                                 ": " + message);
}

namespace {

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::kText: return "text";
    case TokenKind::kVarBegin: return "'{{'";
    case TokenKind::kVarEnd: return "'}}'";
    case TokenKind::kBlockBegin: return "'{%'";
    case TokenKind::kBlockEnd: return "'%}'";
    case TokenKind::kName: return "'" + t.text + "'";
    case TokenKind::kString: return "string literal";
    case TokenKind::kInt:
    case TokenKind::kFloat: return "number " + t.text;
    case TokenKind::kOp: return "'" + t.text + "'";
    case TokenKind::kEnd: return "end of template";
  }
  return "token";
}

}  // namespace

Status Parser::expect_op(std::string_view op) {
  if (!at_op(op)) return error(peek(), "expected '" + std::string(op) + "', found " + describe(peek()));
  advance();
  return Status::Ok();
}

Status Parser::expect(TokenKind kind, const char* what) {
  if (peek().kind != kind) return error(peek(), std::string("expected ") + what + ", found " + describe(peek()));
  advance();
  return Status::Ok();
}

Result<std::string> Parser::expect_identifier(const char* what) {
  if (peek().kind != TokenKind::kName) return error(peek(), std::string("expected ") + what + ", found " + describe(peek()));
  return advance().text;
}

Status Parser::enter(const Token& at) {
  if (++depth_ > kMaxNestingDepth) {
    return error(at, "template nesting deeper than " + std::to_string(kMaxNestingDepth) + " levels");
  }
  return Status::Ok();
}

Result<std::unique_ptr<Template>> Parser::parse_template() {
  auto tmpl = std::make_unique<Template>();
  std::string which;
  STRATA_ASSIGN_OR_RETURN(tmpl->body, parse_body(peek(), "", {}, &which));
  return tmpl;
}

// Parses statements until one of `ends` opens a block tag; leaves the parser on that tag's
// name and reports which one it was. With no `ends`, parses to the end of the template.
Result<Body> Parser::parse_body(const Token& opener, std::string_view block,
                                std::initializer_list<std::string_view> ends, std::string* which_end) {
  STRATA_RETURN_IF_ERROR(enter(opener));
  Body body;
  while (true) {
    const Token& t = peek();
    if (t.kind == TokenKind::kEnd) {
      if (ends.size() == 0) break;
      return error(opener, "unclosed '" + std::string(block) + "' block (expected '{% " + std::string(*ends.begin()) +
                               " %}' before the end of the template)");
    }
    if (t.kind == TokenKind::kText) {
      auto stmt = std::make_unique<Stmt>();
      stmt->kind = StmtKind::kText;
      stmt->line = t.line;
      stmt->column = t.column;
      stmt->text = advance().text;
      body.push_back(std::move(stmt));
      continue;
    }
    if (t.kind == TokenKind::kVarBegin) {
      const Token& begin = advance();
      auto stmt = std::make_unique<Stmt>();
      stmt->kind = StmtKind::kOutput;
      stmt->line = begin.line;
      stmt->column = begin.column;
      STRATA_ASSIGN_OR_RETURN(stmt->expr, parse_tuple(true));
      STRATA_RETURN_IF_ERROR(expect(TokenKind::kVarEnd, "'}}'"));
      body.push_back(std::move(stmt));
      continue;
    }
    if (t.kind != TokenKind::kBlockBegin) return error(t, "unexpected " + describe(t) + " outside a tag");
    const Token& name = peek(1);
    for (std::string_view end : ends) {
      if (name.kind == TokenKind::kName && name.text == end) {
        advance();
        *which_end = name.text;
        --depth_;
        return body;
      }
    }
    const Token& begin = advance();
    STRATA_ASSIGN_OR_RETURN(auto stmt, parse_statement(begin));
    body.push_back(std::move(stmt));
  }
  --depth_;
  return body;
}

// Consumes `name %}` of an end or middle tag the body loop stopped on.
Status Parser::finish_end_tag(std::string_view name) {
  advance();
  if (peek().kind != TokenKind::kBlockEnd) {
    return error(peek(), "expected '%}' after '" + std::string(name) + "', found " + describe(peek()));
  }
  advance();
  return Status::Ok();
}

Result<std::unique_ptr<Stmt>> Parser::parse_statement(const Token& opener) {
  const Token& tag = peek();
  if (tag.kind != TokenKind::kName) return error(tag, "expected a tag name after '{%', found " + describe(tag));
  std::string name = tag.text;
  if (name == "if") return parse_if(opener);
  if (name == "for") return parse_for(opener);
  if (name == "set") return parse_set(opener);
  if (name == "macro") return parse_macro(opener);
  if (name == "filter") return parse_filter_block(opener);
  auto stmt = std::make_unique<Stmt>();
  stmt->line = opener.line;
  stmt->column = opener.column;
  if (name == "break" || name == "continue") {
    if (loop_depth_ == 0) return error(tag, "'" + name + "' outside a for loop");
    stmt->kind = name == "break" ? StmtKind::kBreak : StmtKind::kContinue;
    advance();
    STRATA_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
    return stmt;
  }
  if (name == "generation") {
    // Hugging Face's assistant-mask marker: renders its body unchanged.
    stmt->kind = StmtKind::kScope;
    advance();
    STRATA_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
    std::string which;
    STRATA_ASSIGN_OR_RETURN(Body body, parse_body(opener, "generation", {"endgeneration"}, &which));
    STRATA_RETURN_IF_ERROR(finish_end_tag(which));
    stmt->bodies.push_back(std::move(body));
    return stmt;
  }
  static constexpr std::string_view kClosers[] = {"endif", "elif", "else", "endfor", "endset", "endmacro",
                                                 "endfilter", "endgeneration", "endraw"};
  for (std::string_view closer : kClosers) {
    if (name == closer) return error(tag, "'" + name + "' without a matching block");
  }
  static constexpr std::string_view kKnownUnsupported[] = {"include", "extends", "import", "from", "block",
                                                           "call", "with", "autoescape", "do"};
  for (std::string_view unsupported : kKnownUnsupported) {
    if (name == unsupported) return error(tag, "the '" + name + "' tag is not supported in chat templates");
  }
  return error(tag, "unknown tag '" + name + "'");
}

Result<std::unique_ptr<Stmt>> Parser::parse_if(const Token& opener) {
  auto stmt = std::make_unique<Stmt>();
  stmt->kind = StmtKind::kIf;
  stmt->line = opener.line;
  stmt->column = opener.column;
  advance();  // if
  while (true) {
    STRATA_ASSIGN_OR_RETURN(auto cond, parse_tuple(true));
    STRATA_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
    std::string which;
    STRATA_ASSIGN_OR_RETURN(Body body, parse_body(opener, "if", {"endif", "elif", "else"}, &which));
    stmt->conds.push_back(std::move(cond));
    stmt->bodies.push_back(std::move(body));
    if (which == "elif") {
      advance();
      continue;
    }
    if (which == "else") {
      STRATA_RETURN_IF_ERROR(finish_end_tag(which));
      STRATA_ASSIGN_OR_RETURN(Body else_body, parse_body(opener, "if", {"endif"}, &which));
      stmt->bodies.push_back(std::move(else_body));
    }
    STRATA_RETURN_IF_ERROR(finish_end_tag(which));
    return stmt;
  }
}

// A name, or names separated by commas (optionally parenthesized), as for/set targets.
Result<std::vector<std::string>> Parser::parse_targets() {
  std::vector<std::string> targets;
  bool parenthesized = at_op("(");
  if (parenthesized) advance();
  while (true) {
    STRATA_ASSIGN_OR_RETURN(std::string name, expect_identifier("a variable name"));
    targets.push_back(std::move(name));
    if (!at_op(",")) break;
    advance();
  }
  if (parenthesized) STRATA_RETURN_IF_ERROR(expect_op(")"));
  return targets;
}

Result<std::unique_ptr<Stmt>> Parser::parse_for(const Token& opener) {
  auto stmt = std::make_unique<Stmt>();
  stmt->kind = StmtKind::kFor;
  stmt->line = opener.line;
  stmt->column = opener.column;
  advance();  // for
  STRATA_ASSIGN_OR_RETURN(stmt->targets, parse_targets());
  if (!at_name("in")) return error(peek(), "expected 'in' in for loop, found " + describe(peek()));
  advance();
  STRATA_ASSIGN_OR_RETURN(stmt->expr, parse_tuple(false));
  if (at_name("if")) {
    advance();
    STRATA_ASSIGN_OR_RETURN(stmt->cond, parse_expression());
  }
  if (at_name("recursive")) return error(peek(), "recursive for loops are not supported");
  STRATA_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
  ++loop_depth_;
  std::string which;
  STRATA_ASSIGN_OR_RETURN(Body body, parse_body(opener, "for", {"endfor", "else"}, &which));
  --loop_depth_;
  stmt->bodies.push_back(std::move(body));
  if (which == "else") {
    STRATA_RETURN_IF_ERROR(finish_end_tag(which));
    STRATA_ASSIGN_OR_RETURN(Body else_body, parse_body(opener, "for", {"endfor"}, &which));
    stmt->bodies.push_back(std::move(else_body));
  }
  STRATA_RETURN_IF_ERROR(finish_end_tag(which));
  return stmt;
}

Result<std::unique_ptr<Stmt>> Parser::parse_set(const Token& opener) {
  auto stmt = std::make_unique<Stmt>();
  stmt->kind = StmtKind::kSet;
  stmt->line = opener.line;
  stmt->column = opener.column;
  advance();  // set
  if (peek().kind == TokenKind::kName && at_op(".", 1)) {
    stmt->targets.push_back(advance().text);
    advance();
    STRATA_ASSIGN_OR_RETURN(stmt->attr, expect_identifier("an attribute name"));
  } else {
    STRATA_ASSIGN_OR_RETURN(stmt->targets, parse_targets());
  }
  if (at_op("=")) {
    advance();
    STRATA_ASSIGN_OR_RETURN(stmt->expr, parse_tuple(true));
    STRATA_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
    return stmt;
  }
  if (!stmt->attr.empty() || stmt->targets.size() != 1) return error(peek(), "expected '=' in set");
  stmt->kind = StmtKind::kSetBlock;
  if (at_op("|")) {
    STRATA_ASSIGN_OR_RETURN(stmt->expr, parse_filter_expr(nullptr));
  }
  STRATA_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
  std::string which;
  STRATA_ASSIGN_OR_RETURN(Body body, parse_body(opener, "set", {"endset"}, &which));
  STRATA_RETURN_IF_ERROR(finish_end_tag(which));
  stmt->bodies.push_back(std::move(body));
  return stmt;
}

Result<std::unique_ptr<Stmt>> Parser::parse_macro(const Token& opener) {
  auto stmt = std::make_unique<Stmt>();
  stmt->kind = StmtKind::kMacro;
  stmt->line = opener.line;
  stmt->column = opener.column;
  advance();  // macro
  STRATA_ASSIGN_OR_RETURN(stmt->name, expect_identifier("a macro name"));
  STRATA_RETURN_IF_ERROR(expect_op("("));
  while (!at_op(")")) {
    STRATA_ASSIGN_OR_RETURN(std::string param, expect_identifier("a parameter name"));
    stmt->targets.push_back(std::move(param));
    ExprPtr default_value;
    if (at_op("=")) {
      advance();
      STRATA_ASSIGN_OR_RETURN(default_value, parse_expression());
    } else if (!stmt->defaults.empty() && stmt->defaults.back() != nullptr) {
      return error(peek(), "parameter without a default follows one with a default");
    }
    stmt->defaults.push_back(std::move(default_value));
    if (!at_op(",")) break;
    advance();
  }
  STRATA_RETURN_IF_ERROR(expect_op(")"));
  STRATA_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
  int saved_loop_depth = loop_depth_;
  loop_depth_ = 0;
  std::string which;
  STRATA_ASSIGN_OR_RETURN(Body body, parse_body(opener, "macro", {"endmacro"}, &which));
  loop_depth_ = saved_loop_depth;
  STRATA_RETURN_IF_ERROR(finish_end_tag(which));
  stmt->bodies.push_back(std::move(body));
  return stmt;
}

Result<std::unique_ptr<Stmt>> Parser::parse_filter_block(const Token& opener) {
  auto stmt = std::make_unique<Stmt>();
  stmt->kind = StmtKind::kFilterBlock;
  stmt->line = opener.line;
  stmt->column = opener.column;
  advance();  // filter
  STRATA_ASSIGN_OR_RETURN(stmt->expr, parse_filter(nullptr));
  STRATA_ASSIGN_OR_RETURN(stmt->expr, parse_filter_expr(std::move(stmt->expr)));
  STRATA_RETURN_IF_ERROR(expect(TokenKind::kBlockEnd, "'%}'"));
  std::string which;
  STRATA_ASSIGN_OR_RETURN(Body body, parse_body(opener, "filter", {"endfilter"}, &which));
  STRATA_RETURN_IF_ERROR(finish_end_tag(which));
  stmt->bodies.push_back(std::move(body));
  return stmt;
}

Result<std::unique_ptr<Template>> parse(std::string_view source, const LexOptions& options) {
  STRATA_ASSIGN_OR_RETURN(std::vector<Token> tokens, lex(source, options));
  return Parser(std::move(tokens)).parse_template();
}

}  // namespace strata::jinja
