// Expression evaluation.
#include "chat/jinja_filters.h"
#include "chat/jinja_globals.h"
#include "chat/jinja_methods.h"
#include "chat/jinja_operators.h"
#include "chat/jinja_predicates.h"
#include "chat/jinja_renderer.h"

namespace strata::jinja {

std::string Renderer::describe(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kName: return e.name;
    case ExprKind::kGetAttr: return describe(*e.children[0]) + "." + e.name;
    case ExprKind::kGetItem: {
      const Expr& key = *e.children[1];
      std::string index = key.kind == ExprKind::kLiteral ? key.literal.repr() : "...";
      return describe(*e.children[0]) + "[" + index + "]";
    }
    case ExprKind::kCall: return describe(*e.children[0]) + "(...)";
    default: return "expression";
  }
}

Result<Value> Renderer::eval(const Expr& e) {
  STRATA_RETURN_IF_ERROR(tick(e.line, e.column));
  if (++depth_ > limits_.max_depth) {
    --depth_;
    return located(Status::ResourceExhausted("template nesting exceeds " + std::to_string(limits_.max_depth) + " levels"),
                   e.line, e.column);
  }
  Result<Value> v = eval_kind(e);
  --depth_;
  return v;
}

Result<Value> Renderer::eval_kind(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kLiteral: return e.literal;
    case ExprKind::kName: {
      if (const Value* v = lookup(e.name)) return *v;
      if (is_global_function(e.name)) return Value::MakeCallable(Callable{e.name, nullptr});
      return Value();
    }
    case ExprKind::kList:
    case ExprKind::kTuple:
    case ExprKind::kDict: return eval_container(e);
    case ExprKind::kGetAttr:
    case ExprKind::kGetItem:
    case ExprKind::kSlice: return eval_access(e);
    case ExprKind::kCall: return eval_call(e);
    case ExprKind::kFilter: return eval_filter(e);
    case ExprKind::kTest: return eval_test(e);
    case ExprKind::kUnary:
    case ExprKind::kBinary: return eval_operator(e);
    case ExprKind::kCompare: return eval_compare(e);
    case ExprKind::kCondExpr: {
      STRATA_ASSIGN_OR_RETURN(Value cond, eval(*e.children[1]));
      if (cond.truthy()) return eval(*e.children[0]);
      return e.children[2] ? eval(*e.children[2]) : Value();
    }
  }
  return Value();
}

Result<Value> Renderer::eval_container(const Expr& e) {
  if (e.kind != ExprKind::kDict) {
    Value::List items;
    for (const auto& child : e.children) {
      STRATA_ASSIGN_OR_RETURN(Value v, eval(*child));
      items.push_back(std::move(v));
    }
    return e.kind == ExprKind::kTuple ? Value::MakeTuple(std::move(items)) : Value::MakeList(std::move(items));
  }
  Dict dict;
  for (size_t i = 0; i + 1 < e.children.size(); i += 2) {
    STRATA_ASSIGN_OR_RETURN(Value key, eval(*e.children[i]));
    std::optional<std::string> stored = Dict::stored_key(key);
    if (!stored) {
      return located(Status::InvalidArgument(std::string("dict keys must be strings or integers, got ") + key.type_name()),
                     e.children[i]->line, e.children[i]->column);
    }
    STRATA_ASSIGN_OR_RETURN(Value value, eval(*e.children[i + 1]));
    dict.set(std::move(*stored), std::move(value));
  }
  return Value::MakeDict(std::move(dict));
}

// Evaluates e and fails, naming it, when it is undefined: reading from an undefined value is
// Jinja's UndefinedError.
Result<Value> Renderer::eval_defined(const Expr& e, const char* purpose) {
  STRATA_ASSIGN_OR_RETURN(Value v, eval(e));
  if (v.is_undefined()) {
    return located(Status::InvalidArgument("'" + describe(e) + "' is undefined (" + purpose + ")"), e.line, e.column);
  }
  return v;
}

Result<Value> Renderer::eval_access(const Expr& e) {
  STRATA_ASSIGN_OR_RETURN(Value obj, eval_defined(*e.children[0], e.kind == ExprKind::kGetAttr
                                                                      ? "reading an attribute"
                                                                      : "reading an item"));
  if (e.kind == ExprKind::kGetAttr) return get_attr(obj, e.name);
  STRATA_RETURN_IF_ERROR(charge(obj, e.line, e.column));
  if (e.kind == ExprKind::kSlice) return eval_slice(e, obj);
  STRATA_ASSIGN_OR_RETURN(Value key, eval(*e.children[1]));
  return get_item(obj, key);
}

Result<Value> Renderer::eval_slice(const Expr& e, const Value& obj) {
  std::optional<int64_t> bounds[3];
  for (int i = 0; i < 3; ++i) {
    const Expr* bound = e.children[1 + i].get();
    if (bound == nullptr) continue;
    STRATA_ASSIGN_OR_RETURN(Value v, eval(*bound));
    if (v.is_none() || v.is_undefined()) continue;
    if (!v.is_int() && !v.is_bool()) {
      return located(Status::InvalidArgument("slice indices must be integers or None"), bound->line, bound->column);
    }
    bounds[i] = v.as_int();
  }
  Result<Value> sliced = slice(obj, bounds[0], bounds[1], bounds[2]);
  if (!sliced.ok()) return located(sliced.status(), e.line, e.column);
  return sliced;
}

Result<CallArgs> Renderer::eval_args(const Expr& e, size_t first_child) {
  CallArgs args;
  for (size_t i = first_child; i < e.children.size(); ++i) {
    STRATA_ASSIGN_OR_RETURN(Value v, eval(*e.children[i]));
    args.positional.push_back(std::move(v));
  }
  for (const auto& [name, expr] : e.kwargs) {
    STRATA_ASSIGN_OR_RETURN(Value v, eval(*expr));
    args.named.emplace_back(name, std::move(v));
  }
  return args;
}

Result<Value> Renderer::eval_call(const Expr& e) {
  const Expr& callee = *e.children[0];
  if (callee.kind == ExprKind::kGetAttr) {
    STRATA_ASSIGN_OR_RETURN(Value obj, eval_defined(*callee.children[0], "calling a method"));
    STRATA_ASSIGN_OR_RETURN(CallArgs args, eval_args(e, 1));
    if (has_method(obj, callee.name)) {
      STRATA_RETURN_IF_ERROR(charge(obj, callee.line, callee.column));
      Result<Value> out = call_method(obj, callee.name, args, ctx_);
      if (!out.ok()) return located(out.status(), callee.line, callee.column);
      // A list appended to may now hold itself: the Renderer empties it at the end (jinja_renderer.h).
      if (obj.is_list() && callee.name == "append" && appended_list_ids_.insert(obj.list_identity()).second) {
        appended_lists_.push_back(obj);
      }
      STRATA_RETURN_IF_ERROR(charge(*out, callee.line, callee.column));
      return out;
    }
    return call_value(get_attr(obj, callee.name), args, e, describe(callee));
  }
  STRATA_ASSIGN_OR_RETURN(Value fn, eval(callee));
  STRATA_ASSIGN_OR_RETURN(CallArgs args, eval_args(e, 1));
  return call_value(fn, args, e, describe(callee));
}

Result<Value> Renderer::call_value(const Value& callee, const CallArgs& args, const Expr& at, const std::string& what) {
  if (callee.is_callable()) {
    const Callable& fn = callee.as_callable();
    if (fn.macro != nullptr) return call_macro(*fn.macro, args, at);
    Result<Value> out = call_global(fn.name, args, ctx_);
    if (!out.ok()) return located(out.status(), at.line, at.column);
    if (out->is_namespace()) namespaces_.push_back(*out);
    return out;
  }
  if (callee.is_undefined()) {
    return located(Status::InvalidArgument("'" + what + "' is undefined (calling it)"), at.line, at.column);
  }
  return located(Status::InvalidArgument("'" + what + "' is not callable (it is a " + callee.type_name() + ")"),
                 at.line, at.column);
}

Result<Value> Renderer::call_macro(const Stmt& macro, const CallArgs& args, const Expr& at) {
  if (args.positional.size() > macro.targets.size()) {
    return located(Status::InvalidArgument("macro '" + macro.name + "' takes " + std::to_string(macro.targets.size()) +
                                           " arguments, got " + std::to_string(args.positional.size())),
                   at.line, at.column);
  }
  for (const auto& [name, value] : args.named) {
    bool known = false;
    for (const std::string& param : macro.targets) known = known || param == name;
    if (!known) {
      return located(Status::InvalidArgument("macro '" + macro.name + "' has no parameter '" + name + "'"), at.line,
                     at.column);
    }
  }
  if (call_depth_ >= limits_.max_call_depth) {
    return located(Status::ResourceExhausted("macro calls nested deeper than " + std::to_string(limits_.max_call_depth)),
                   at.line, at.column);
  }
  Dict frame;
  for (size_t i = 0; i < macro.targets.size(); ++i) {
    const Value* given = args.get(i, macro.targets[i]);
    Value value;
    if (given != nullptr) {
      value = *given;
    } else if (macro.defaults[i]) {
      STRATA_ASSIGN_OR_RETURN(value, eval(*macro.defaults[i]));
    }
    frame.set(macro.targets[i], std::move(value));
  }
  size_t saved_floor = floor_;
  frames_.push_back(std::move(frame));
  floor_ = frames_.size() - 1;
  ++call_depth_;
  Result<std::string> text = capture(macro.bodies[0]);
  --call_depth_;
  frames_.pop_back();
  floor_ = saved_floor;
  if (!text.ok()) return text.status();
  return Value::String(std::move(text).value());
}

Result<Value> Renderer::eval_filter(const Expr& e) {
  Value input;
  if (e.children[0]) {
    STRATA_ASSIGN_OR_RETURN(input, eval(*e.children[0]));
  } else if (block_input_ != nullptr) {
    input = *block_input_;
  }
  STRATA_ASSIGN_OR_RETURN(CallArgs args, eval_args(e, 1));
  STRATA_RETURN_IF_ERROR(charge(input, e.line, e.column));
  Result<Value> out = apply_filter(e.name, input, args, ctx_);
  if (!out.ok()) return located(out.status(), e.line, e.column);
  STRATA_RETURN_IF_ERROR(charge(*out, e.line, e.column));
  return out;
}

Result<Value> Renderer::eval_test(const Expr& e) {
  STRATA_ASSIGN_OR_RETURN(Value subject, eval(*e.children[0]));
  STRATA_ASSIGN_OR_RETURN(CallArgs args, eval_args(e, 1));
  Result<bool> passed = apply_test(e.name, subject, args);
  if (!passed.ok()) return located(passed.status(), e.line, e.column);
  return Value::Bool(*passed != e.negated);
}

Result<Value> Renderer::eval_operator(const Expr& e) {
  STRATA_ASSIGN_OR_RETURN(Value a, eval(*e.children[0]));
  if (e.kind == ExprKind::kUnary) {
    if (e.name == "not") return Value::Bool(!a.truthy());
    Result<Value> out = unary_op(e.name, a);
    if (!out.ok()) return located(out.status(), e.line, e.column);
    return out;
  }
  // `and` / `or` return an operand, as in Python: `x or 'default'`.
  if (e.name == "and") return a.truthy() ? eval(*e.children[1]) : a;
  if (e.name == "or") return a.truthy() ? a : eval(*e.children[1]);
  STRATA_ASSIGN_OR_RETURN(Value b, eval(*e.children[1]));
  Result<Value> out = binary_op(e.name, a, b, ctx_);
  if (!out.ok()) return located(out.status(), e.line, e.column);
  STRATA_RETURN_IF_ERROR(charge(*out, e.line, e.column));
  return out;
}

// a < b < c means a < b and b < c, each operand evaluated once.
Result<Value> Renderer::eval_compare(const Expr& e) {
  STRATA_ASSIGN_OR_RETURN(Value left, eval(*e.children[0]));
  for (size_t i = 0; i < e.ops.size(); ++i) {
    STRATA_ASSIGN_OR_RETURN(Value right, eval(*e.children[i + 1]));
    STRATA_RETURN_IF_ERROR(charge(right, e.line, e.column));
    Result<bool> holds = compare_op(e.ops[i], left, right);
    if (!holds.ok()) return located(holds.status(), e.children[i + 1]->line, e.children[i + 1]->column);
    if (!*holds) return Value::Bool(false);
    left = std::move(right);
  }
  return Value::Bool(true);
}

}  // namespace strata::jinja
