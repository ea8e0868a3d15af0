// Arguments of a call to a filter, test, method or global function, plus the per-render
// bounds those calls must respect. Plain values, built per call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "chat/jinja_value.h"

namespace strata::jinja {

// Lists longer than this are refused (range(), list repetition), as strings longer than
// CallContext::max_bytes are: a template must not be able to exhaust memory.
inline constexpr size_t kMaxListItems = size_t{1} << 20;

struct CallContext {
  size_t max_bytes = 0;  // longest string a call may build
  int64_t now_s = 0;     // the wall clock strftime_now reads (seconds since the epoch)
};

// "string of 20000000 bytes exceeds the template's limit of 16777216"
Status check_size(size_t n_bytes, const CallContext& ctx);

struct CallArgs {
  // Pass as `index` for an argument that can only be given by keyword.
  static constexpr size_t kKeywordOnly = static_cast<size_t>(-1);

  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> named;

  // The argument given at `index` or by keyword `name`, or nullptr.
  const Value* get(size_t index, std::string_view name) const;
  // Fails naming `what` when more than `n_positional` positional arguments, or a keyword not
  // in `names`, was passed.
  Status check(std::string_view what, size_t n_positional, std::initializer_list<std::string_view> names) const;

  // Typed accessors: the fallback when absent (or none), an error naming the argument when
  // it has the wrong type.
  Result<std::string> string_at(size_t index, std::string_view name, std::string fallback) const;
  Result<std::optional<std::string>> optional_string_at(size_t index, std::string_view name) const;
  Result<int64_t> int_at(size_t index, std::string_view name, int64_t fallback) const;
  bool bool_at(size_t index, std::string_view name, bool fallback) const;
};

}  // namespace strata::jinja
