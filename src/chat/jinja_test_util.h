// Test helpers: parse and render a template source against a JSON context in one call.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "base/status.h"
#include "chat/jinja_json.h"
#include "chat/jinja_parser.h"
#include "chat/jinja_render.h"

namespace strata::jinja {

inline Result<std::string> render_source(std::string_view source, const nlohmann::json& context = nlohmann::json::object(),
                                         const RenderOptions& options = {}) {
  STRATA_ASSIGN_OR_RETURN(auto tmpl, parse(source));
  Dict dict;
  for (const auto& [key, field] : context.items()) {
    STRATA_ASSIGN_OR_RETURN(Value v, value_from_json(field));
    dict.set(key, std::move(v));
  }
  return render(*tmpl, dict, options);
}

// The rendered text, or "ERROR: <status>" so that a failure shows in the comparison.
inline std::string render_text(std::string_view source, const nlohmann::json& context = nlohmann::json::object(),
                               const RenderOptions& options = {}) {
  Result<std::string> out = render_source(source, context, options);
  return out.ok() ? *out : "ERROR: " + out.status().ToString();
}

// The error message of a render that must fail, or "UNEXPECTED SUCCESS: <text>".
inline std::string render_error(std::string_view source, const nlohmann::json& context = nlohmann::json::object(),
                                const RenderOptions& options = {}) {
  Result<std::string> out = render_source(source, context, options);
  return out.ok() ? "UNEXPECTED SUCCESS: " + *out : out.status().message();
}

}  // namespace strata::jinja
