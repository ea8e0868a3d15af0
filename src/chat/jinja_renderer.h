// Internal to the chat module: the Renderer that jinja_render_stmt.cc (statements) and
// jinja_render_expr.cc (expressions) implement. One Renderer renders one template once, on
// one thread.
//
// Scopes follow Jinja: frame 0 holds the context and top-level variables; each for-loop
// iteration and each macro call pushes a frame, so `set` inside them stays local (namespaces
// exist to escape that). A macro body sees its own frames and frame 0 only.
//
// Namespaces and the lists a template builds are the only mutable values, so every reference
// cycle runs through a namespace ({% set ns.self = [ns] %}) or a list something was appended to
// ({% set _ = xs.append(xs) %}); the Renderer empties the namespaces it created and the lists it
// appended to when it is destroyed, so no render leaks memory.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "chat/jinja_args.h"
#include "chat/jinja_ast.h"
#include "chat/jinja_render.h"

namespace strata::jinja {

class Renderer {
 public:
  Renderer(const Dict& context, const RenderOptions& options);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  Result<std::string> run(const Template& tmpl);

 private:
  enum class Flow { kNormal, kBreak, kContinue };

  // Statements (jinja_render_stmt.cc).
  Status exec_body(const Body& body);
  Status exec(const Stmt& stmt);
  Status exec_for(const Stmt& stmt);
  Status exec_set(const Stmt& stmt);
  Status exec_set_block(const Stmt& stmt);
  Status exec_filter_block(const Stmt& stmt);
  Result<Value::List> loop_items(const Stmt& stmt);
  Result<std::string> capture(const Body& body);
  Status emit(std::string_view text, int line, int column);
  Status bind(const std::vector<std::string>& targets, const Value& value, int line, int column);

  // Expressions (jinja_render_expr.cc).
  Result<Value> eval(const Expr& e);
  Result<Value> eval_kind(const Expr& e);
  Result<Value> eval_container(const Expr& e);
  Result<Value> eval_access(const Expr& e);
  Result<Value> eval_slice(const Expr& e, const Value& obj);
  Result<Value> eval_call(const Expr& e);
  Result<Value> call_value(const Value& callee, const CallArgs& args, const Expr& at, const std::string& what);
  Result<Value> call_macro(const Stmt& macro, const CallArgs& args, const Expr& at);
  Result<Value> eval_filter(const Expr& e);
  Result<Value> eval_test(const Expr& e);
  Result<Value> eval_operator(const Expr& e);
  Result<Value> eval_compare(const Expr& e);
  Result<CallArgs> eval_args(const Expr& e, size_t first_child);
  Result<Value> eval_defined(const Expr& e, const char* purpose);

  // Scopes and bookkeeping.
  const Value* lookup(std::string_view name) const;
  void assign(const std::string& name, Value value);
  Status tick(int line, int column);
  Status charge(const Value& v, int line, int column);
  static Status located(const Status& status, int line, int column);
  static std::string describe(const Expr& e);

  RenderLimits limits_;
  CallContext ctx_;
  std::vector<Dict> frames_;
  size_t floor_ = 0;  // lookups see frames [floor_, top] and frame 0
  std::string* out_ = nullptr;
  int64_t steps_ = 0;
  int depth_ = 0;
  int call_depth_ = 0;
  Flow flow_ = Flow::kNormal;
  const Value* block_input_ = nullptr;  // the body text a filter block or block set filters
  std::vector<Value> namespaces_;       // every namespace this render created
  std::vector<Value> appended_lists_;   // every list this render appended to, once each
  std::unordered_set<const void*> appended_list_ids_;
};

}  // namespace strata::jinja
