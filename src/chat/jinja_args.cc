#include "chat/jinja_args.h"

namespace strata::jinja {

Status check_size(size_t n_bytes, const CallContext& ctx) {
  if (n_bytes <= ctx.max_bytes) return Status::Ok();
  return Status::ResourceExhausted("string of " + std::to_string(n_bytes) + " bytes exceeds the template's limit of " +
                                   std::to_string(ctx.max_bytes));
}

const Value* CallArgs::get(size_t index, std::string_view name) const {
  if (index < positional.size()) return &positional[index];
  for (const auto& [key, value] : named) {
    if (key == name) return &value;
  }
  return nullptr;
}

Status CallArgs::check(std::string_view what, size_t n_positional,
                       std::initializer_list<std::string_view> names) const {
  if (positional.size() > n_positional) {
    return Status::InvalidArgument(std::string(what) + " takes at most " + std::to_string(n_positional) +
                                   " positional arguments, got " + std::to_string(positional.size()));
  }
  for (const auto& [key, value] : named) {
    bool known = false;
    for (std::string_view n : names) known = known || n == key;
    if (!known) return Status::InvalidArgument(std::string(what) + " got an unexpected keyword argument '" + key + "'");
  }
  return Status::Ok();
}

Result<std::string> CallArgs::string_at(size_t index, std::string_view name, std::string fallback) const {
  const Value* v = get(index, name);
  if (v == nullptr || v->is_none() || v->is_undefined()) return fallback;
  if (!v->is_string()) {
    return Status::InvalidArgument("argument '" + std::string(name) + "' must be a string, got " + v->type_name());
  }
  return v->as_string();
}

Result<std::optional<std::string>> CallArgs::optional_string_at(size_t index, std::string_view name) const {
  const Value* v = get(index, name);
  if (v == nullptr || v->is_none() || v->is_undefined()) return std::optional<std::string>();
  if (!v->is_string()) {
    return Status::InvalidArgument("argument '" + std::string(name) + "' must be a string, got " + v->type_name());
  }
  return std::optional<std::string>(v->as_string());
}

Result<int64_t> CallArgs::int_at(size_t index, std::string_view name, int64_t fallback) const {
  const Value* v = get(index, name);
  if (v == nullptr || v->is_none() || v->is_undefined()) return fallback;
  if (!v->is_int() && !v->is_bool()) {
    return Status::InvalidArgument("argument '" + std::string(name) + "' must be an integer, got " + v->type_name());
  }
  return v->as_int();
}

bool CallArgs::bool_at(size_t index, std::string_view name, bool fallback) const {
  const Value* v = get(index, name);
  return v == nullptr ? fallback : v->truthy();
}

}  // namespace strata::jinja
