// The parsed form of a Jinja template: expression and statement trees. A Template owns its
// whole tree; after parsing it is never modified, so any number of threads may render it.
//
// Nodes are generic (a kind plus children) rather than one class per construct; the layout
// of each kind is listed beside it.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "chat/jinja_value.h"

namespace strata::jinja {

enum class ExprKind {
  kLiteral,   // literal
  kName,      // name
  kList,      // children: items
  kTuple,     // children: items (a tuple evaluates to a list)
  kDict,      // children: key0, value0, key1, value1...
  kGetAttr,   // children[0] . name
  kGetItem,   // children[0] [ children[1] ]
  kSlice,     // children[0] [ children[1] : children[2] : children[3] ], each bound may be null
  kCall,      // children[0] ( children[1..], kwargs )
  kFilter,    // children[0] | name ( children[1..], kwargs ); children[0] is null in a filter block
  kTest,      // children[0] is [not] name ( children[1..] ); negated for `is not`
  kUnary,     // name ("-", "+", "not") children[0]
  kBinary,    // children[0] name children[1]; name is one of + - * / // % ** ~ and or
  kCompare,   // children[0] ops[0] children[1] ops[1] children[2]... (Python chained comparison)
  kCondExpr,  // children[0] if children[1] else children[2] (children[2] may be null)
};

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  int line = 0;
  int column = 0;
  Value literal;
  std::string name;
  std::vector<std::unique_ptr<Expr>> children;
  std::vector<std::pair<std::string, std::unique_ptr<Expr>>> kwargs;
  std::vector<std::string> ops;
  bool negated = false;
};

using Body = std::vector<std::unique_ptr<Stmt>>;

enum class StmtKind {
  kText,         // text
  kOutput,       // {{ expr }}
  kIf,           // conds[i] guards bodies[i]; an extra trailing body is the else branch
  kFor,          // for targets in expr [if cond]: bodies[0], else bodies[1] (optional)
  kSet,          // set targets = expr; with attr set: targets[0].attr = expr
  kSetBlock,     // set targets[0] [| filters in expr]: bodies[0]
  kMacro,        // macro name(targets with defaults): bodies[0]
  kFilterBlock,  // filter <expr chain, innermost input null>: bodies[0]
  kBreak,
  kContinue,
  kScope,        // a block with no effect of its own ({% generation %}): bodies[0]
};

struct Stmt {
  StmtKind kind = StmtKind::kText;
  int line = 0;
  int column = 0;
  std::string text;
  std::string name;   // kMacro: its name
  std::string attr;   // kSet on a namespace attribute
  std::unique_ptr<Expr> expr;
  std::unique_ptr<Expr> cond;
  std::vector<std::string> targets;
  std::vector<std::unique_ptr<Expr>> defaults;  // kMacro: per parameter, null when none
  std::vector<std::unique_ptr<Expr>> conds;
  std::vector<Body> bodies;
};

struct Template {
  Body body;
};

}  // namespace strata::jinja
