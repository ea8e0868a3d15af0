// Statement execution, scopes and render bookkeeping.
#include "chat/jinja_operators.h"
#include "chat/jinja_renderer.h"

namespace strata::jinja {

Renderer::Renderer(const Dict& context, const RenderOptions& options) : limits_(options.limits) {
  ctx_.max_bytes = limits_.max_output_bytes;
  ctx_.now_s = options.now_s;
  frames_.push_back(context);
}

Renderer::~Renderer() {
  for (const Value& ns : namespaces_) ns.mutable_namespace().clear();
  for (const Value& list : appended_lists_) list.mutable_list().clear();
}

Result<std::string> Renderer::run(const Template& tmpl) {
  std::string out;
  out_ = &out;
  STRATA_RETURN_IF_ERROR(exec_body(tmpl.body));
  return out;
}

Result<std::string> render(const Template& tmpl, const Dict& context, const RenderOptions& options) {
  return Renderer(context, options).run(tmpl);
}

const Value* Renderer::lookup(std::string_view name) const {
  for (size_t i = frames_.size(); i-- > floor_;) {
    if (const Value* v = frames_[i].find(name)) return v;
  }
  return floor_ > 0 ? frames_[0].find(name) : nullptr;
}

void Renderer::assign(const std::string& name, Value value) { frames_.back().set(name, std::move(value)); }

Status Renderer::located(const Status& status, int line, int column) {
  return Status(status.code(),
                "template line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + status.message());
}

Status Renderer::tick(int line, int column) {
  if (++steps_ > limits_.max_steps) {
    return located(Status::ResourceExhausted("template exceeded " + std::to_string(limits_.max_steps) +
                                             " evaluation steps (does it loop without end?)"),
                   line, column);
  }
  return Status::Ok();
}

// Operations on strings and lists cost time in proportion to their size; charging it to the
// step budget bounds a render's total work, not just its operation count.
Status Renderer::charge(const Value& v, int line, int column) {
  int64_t cost = 0;
  if (v.is_string()) cost = static_cast<int64_t>(v.as_string().size() / 256);
  if (v.is_list()) cost = static_cast<int64_t>(v.as_list().size() / 16);
  if (v.is_dict()) cost = static_cast<int64_t>(v.as_dict().size() / 16);
  if (cost == 0) return Status::Ok();
  steps_ += cost - 1;
  return tick(line, column);
}

Status Renderer::emit(std::string_view text, int line, int column) {
  if (out_->size() + text.size() > limits_.max_output_bytes) {
    return located(Status::ResourceExhausted("template output exceeds " + std::to_string(limits_.max_output_bytes) +
                                             " bytes"),
                   line, column);
  }
  out_->append(text);
  return Status::Ok();
}

Status Renderer::exec_body(const Body& body) {
  for (const auto& stmt : body) {
    STRATA_RETURN_IF_ERROR(exec(*stmt));
    if (flow_ != Flow::kNormal) break;
  }
  return Status::Ok();
}

Status Renderer::exec(const Stmt& stmt) {
  STRATA_RETURN_IF_ERROR(tick(stmt.line, stmt.column));
  if (++depth_ > limits_.max_depth) {
    return located(Status::ResourceExhausted("template nesting exceeds " + std::to_string(limits_.max_depth) + " levels"),
                   stmt.line, stmt.column);
  }
  struct DepthGuard {
    int* depth;
    ~DepthGuard() { --*depth; }
  } guard{&depth_};
  switch (stmt.kind) {
    case StmtKind::kText: return emit(stmt.text, stmt.line, stmt.column);
    case StmtKind::kOutput: {
      STRATA_ASSIGN_OR_RETURN(Value v, eval(*stmt.expr));
      return emit(v.to_str(), stmt.line, stmt.column);
    }
    case StmtKind::kIf:
      for (size_t i = 0; i < stmt.conds.size(); ++i) {
        STRATA_ASSIGN_OR_RETURN(Value cond, eval(*stmt.conds[i]));
        if (cond.truthy()) return exec_body(stmt.bodies[i]);
      }
      return stmt.bodies.size() > stmt.conds.size() ? exec_body(stmt.bodies.back()) : Status::Ok();
    case StmtKind::kFor: return exec_for(stmt);
    case StmtKind::kSet: return exec_set(stmt);
    case StmtKind::kSetBlock: return exec_set_block(stmt);
    case StmtKind::kMacro: assign(stmt.name, Value::MakeCallable(Callable{stmt.name, &stmt})); return Status::Ok();
    case StmtKind::kFilterBlock: return exec_filter_block(stmt);
    case StmtKind::kBreak: flow_ = Flow::kBreak; return Status::Ok();
    case StmtKind::kContinue: flow_ = Flow::kContinue; return Status::Ok();
    case StmtKind::kScope: return exec_body(stmt.bodies[0]);
  }
  return Status::Ok();
}

Status Renderer::bind(const std::vector<std::string>& targets, const Value& value, int line, int column) {
  if (targets.size() == 1) {
    assign(targets[0], value);
    return Status::Ok();
  }
  if (!value.is_list() || value.as_list().size() != targets.size()) {
    std::string got = value.is_list() ? std::to_string(value.as_list().size()) + " values" : value.type_name();
    return located(Status::InvalidArgument("cannot unpack " + got + " into " + std::to_string(targets.size()) + " names"),
                   line, column);
  }
  for (size_t i = 0; i < targets.size(); ++i) assign(targets[i], value.as_list()[i]);
  return Status::Ok();
}

// The items the loop visits, after its `if` filter (which sees each item but not `loop`).
Result<Value::List> Renderer::loop_items(const Stmt& stmt) {
  STRATA_ASSIGN_OR_RETURN(Value iterable, eval(*stmt.expr));
  STRATA_RETURN_IF_ERROR(charge(iterable, stmt.line, stmt.column));
  Result<Value::List> items = iterate(iterable);
  if (!items.ok()) return located(items.status(), stmt.expr->line, stmt.expr->column);
  if (!stmt.cond) return items;
  Value::List kept;
  for (Value& item : *items) {
    frames_.emplace_back();
    Status bound = bind(stmt.targets, item, stmt.line, stmt.column);
    Result<Value> cond = bound.ok() ? eval(*stmt.cond) : Result<Value>(bound);
    frames_.pop_back();
    if (!cond.ok()) return cond.status();
    if (cond->truthy()) kept.push_back(std::move(item));
  }
  return kept;
}

Status Renderer::exec_for(const Stmt& stmt) {
  STRATA_ASSIGN_OR_RETURN(Value::List items, loop_items(stmt));
  if (items.empty()) return stmt.bodies.size() > 1 ? exec_body(stmt.bodies[1]) : Status::Ok();
  const auto n = static_cast<int64_t>(items.size());
  for (int64_t i = 0; i < n; ++i) {
    STRATA_RETURN_IF_ERROR(tick(stmt.line, stmt.column));
    Dict loop;
    loop.set("index", Value::Int(i + 1));
    loop.set("index0", Value::Int(i));
    loop.set("revindex", Value::Int(n - i));
    loop.set("revindex0", Value::Int(n - i - 1));
    loop.set("first", Value::Bool(i == 0));
    loop.set("last", Value::Bool(i == n - 1));
    loop.set("length", Value::Int(n));
    loop.set("previtem", i > 0 ? items[i - 1] : Value());
    loop.set("nextitem", i + 1 < n ? items[i + 1] : Value());
    loop.set("depth", Value::Int(1));
    loop.set("depth0", Value::Int(0));
    frames_.emplace_back();
    Status status = bind(stmt.targets, items[i], stmt.line, stmt.column);
    if (status.ok()) {
      assign("loop", Value::MakeDict(std::move(loop)));
      status = exec_body(stmt.bodies[0]);
    }
    frames_.pop_back();
    STRATA_RETURN_IF_ERROR(status);
    Flow flow = flow_;
    flow_ = Flow::kNormal;
    if (flow == Flow::kBreak) break;
  }
  return Status::Ok();
}

Status Renderer::exec_set(const Stmt& stmt) {
  STRATA_ASSIGN_OR_RETURN(Value value, eval(*stmt.expr));
  if (stmt.attr.empty()) return bind(stmt.targets, value, stmt.line, stmt.column);
  const Value* target = lookup(stmt.targets[0]);
  if (target == nullptr || !target->is_namespace()) {
    return located(Status::InvalidArgument("cannot set attribute '" + stmt.attr + "': '" + stmt.targets[0] +
                                           "' is not a namespace"),
                   stmt.line, stmt.column);
  }
  target->mutable_namespace().set(stmt.attr, std::move(value));
  return Status::Ok();
}

Result<std::string> Renderer::capture(const Body& body) {
  std::string buffer;
  std::string* saved = out_;
  out_ = &buffer;
  Status status = exec_body(body);
  out_ = saved;
  if (!status.ok()) return status;
  return buffer;
}

Status Renderer::exec_set_block(const Stmt& stmt) {
  STRATA_ASSIGN_OR_RETURN(std::string text, capture(stmt.bodies[0]));
  Value value = Value::String(std::move(text));
  if (stmt.expr) {
    const Value* saved = block_input_;
    block_input_ = &value;
    Result<Value> filtered = eval(*stmt.expr);
    block_input_ = saved;
    if (!filtered.ok()) return filtered.status();
    value = std::move(filtered).value();
  }
  assign(stmt.targets[0], std::move(value));
  return Status::Ok();
}

Status Renderer::exec_filter_block(const Stmt& stmt) {
  STRATA_ASSIGN_OR_RETURN(std::string text, capture(stmt.bodies[0]));
  Value value = Value::String(std::move(text));
  const Value* saved = block_input_;
  block_input_ = &value;
  Result<Value> filtered = eval(*stmt.expr);
  block_input_ = saved;
  if (!filtered.ok()) return filtered.status();
  return emit(filtered->to_str(), stmt.line, stmt.column);
}

}  // namespace strata::jinja
