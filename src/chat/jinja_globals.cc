#include "chat/jinja_globals.h"

#include <cmath>
#include <ctime>
#include <string>

namespace strata::jinja {
namespace {

Result<Value> range(const CallArgs& args) {
  STRATA_RETURN_IF_ERROR(args.check("range", 3, {}));
  if (args.positional.empty()) return Status::InvalidArgument("range expected at least 1 argument, got 0");
  int64_t bounds[3] = {0, 0, 1};
  for (size_t i = 0; i < args.positional.size(); ++i) {
    const Value& v = args.positional[i];
    if (!v.is_int() && !v.is_bool()) {
      return Status::InvalidArgument(std::string("range: '") + v.type_name() + "' object cannot be interpreted as an integer");
    }
  }
  if (args.positional.size() == 1) {
    bounds[1] = args.positional[0].as_int();
  } else {
    for (size_t i = 0; i < args.positional.size(); ++i) bounds[i] = args.positional[i].as_int();
  }
  auto [start, stop, step] = bounds;
  if (step == 0) return Status::InvalidArgument("range() arg 3 must not be zero");
  // Counted in long double so that extreme bounds cannot overflow.
  long double abs_step = step > 0 ? static_cast<long double>(step) : -static_cast<long double>(step);
  long double span = step > 0 ? static_cast<long double>(stop) - start : static_cast<long double>(start) - stop;
  long double count = span <= 0 ? 0 : std::floor((span + abs_step - 1) / abs_step);
  if (count > static_cast<long double>(kMaxListItems)) {
    return Status::ResourceExhausted("range of more than " + std::to_string(kMaxListItems) + " items");
  }
  Value::List items;
  int64_t n = static_cast<int64_t>(count);
  for (int64_t i = 0; i < n; ++i) items.push_back(Value::Int(start + i * step));
  return Value::MakeList(std::move(items));
}

// namespace(...) and dict(...): an optional mapping, then keyword arguments.
Result<Dict> collect_dict(const char* what, const CallArgs& args) {
  if (args.positional.size() > 1) {
    return Status::InvalidArgument(std::string(what) + "() takes at most one positional argument");
  }
  Dict dict;
  if (!args.positional.empty()) {
    const Value& init = args.positional[0];
    if (!init.is_dict() && !init.is_namespace()) {
      return Status::InvalidArgument(std::string(what) + "() takes a mapping, got " + init.type_name());
    }
    dict = init.as_dict();
  }
  for (const auto& [key, value] : args.named) dict.set(key, value);
  return dict;
}

Result<Value> strftime_now(const CallArgs& args, const CallContext& ctx) {
  STRATA_RETURN_IF_ERROR(args.check("strftime_now", 1, {"format"}));
  const Value* format = args.get(0, "format");
  if (format == nullptr || !format->is_string()) return Status::InvalidArgument("strftime_now needs a format string");
  std::time_t now = static_cast<std::time_t>(ctx.now_s);
  std::tm local{};
  if (localtime_r(&now, &local) == nullptr) return Status::Internal("strftime_now: the clock is out of range");
  char buf[512];
  size_t n = std::strftime(buf, sizeof(buf), format->as_string().c_str(), &local);
  if (n == 0 && !format->as_string().empty()) return Status::InvalidArgument("strftime_now: formatted date is too long");
  return Value::String(std::string(buf, n));
}

}  // namespace

bool is_global_function(std::string_view name) {
  return name == "range" || name == "namespace" || name == "dict" || name == "raise_exception" ||
         name == "strftime_now";
}

Result<Value> call_global(std::string_view name, const CallArgs& args, const CallContext& ctx) {
  if (name == "range") return range(args);
  if (name == "namespace" || name == "dict") {
    STRATA_ASSIGN_OR_RETURN(Dict dict, collect_dict(name == "dict" ? "dict" : "namespace", args));
    return name == "dict" ? Value::MakeDict(std::move(dict)) : Value::MakeNamespace(std::move(dict));
  }
  if (name == "raise_exception") {
    const Value* message = args.get(0, "message");
    return Status::InvalidArgument("raised by the template: " + (message != nullptr ? message->to_str() : std::string()));
  }
  if (name == "strftime_now") return strftime_now(args, ctx);
  return Status::InvalidArgument("unknown function '" + std::string(name) + "'");
}

}  // namespace strata::jinja
