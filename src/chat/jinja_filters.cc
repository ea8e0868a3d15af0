#include "chat/jinja_filters.h"

#include <string>

#include "chat/jinja_filters_impl.h"

namespace strata::jinja {
namespace {

std::string_view canonical_name(std::string_view name) {
  if (name == "d") return "default";
  if (name == "count") return "length";
  if (name == "e") return "escape";
  return name;
}

FilterFn find_filter(std::string_view name) {
  name = canonical_name(name);
  FilterFn fn = find_text_filter(name);
  return fn != nullptr ? fn : find_sequence_filter(name);
}

}  // namespace

bool is_known_filter(std::string_view name) { return find_filter(name) != nullptr; }

Result<Value> apply_filter(std::string_view name, const Value& input, const CallArgs& args, const CallContext& ctx) {
  FilterFn fn = find_filter(name);
  if (fn == nullptr) return Status::InvalidArgument("unknown filter '" + std::string(name) + "'");
  Result<Value> out = fn(input, args, ctx);
  if (!out.ok()) return Status(out.status().code(), "filter '" + std::string(name) + "': " + out.status().message());
  return out;
}

}  // namespace strata::jinja
