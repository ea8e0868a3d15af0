#include "server/json_fields.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "server/json_error_site.h"

namespace strata::server {

namespace {

// nlohmann rejects a syntactically fine number that overflows a double with out_of_range 406,
// which names neither the field nor the offset; a second, path-tracking pass finds both.
Status number_overflow_error(std::string_view body) {
  constexpr size_t kMaxTokenChars = 40;
  JsonErrorSite site = json_error_site(body);
  if (site.token.size() > kMaxTokenChars) site.token = site.token.substr(0, kMaxTokenChars) + "...";
  if (site.path.empty()) {
    return Status::InvalidArgument(fmt::format(
        "request body holds a number too large for a double ({}) at byte {}", site.token, site.byte));
  }
  return Status::InvalidArgument(fmt::format("'{}' holds a number too large for a double ({}) at byte {}",
                                             site.path, site.token, site.byte));
}

}  // namespace

Result<RequestJson> parse_json_object(std::string_view body) {
  OrderedJsonParse parsed = parse_ordered_json(body);
  switch (parsed.error) {
    case OrderedJsonParse::Error::kNone: break;
    case OrderedJsonParse::Error::kNumberOverflow: return number_overflow_error(body);
    case OrderedJsonParse::Error::kTooManyKeys: return Status::InvalidArgument(too_many_keys_message(parsed.message));
    case OrderedJsonParse::Error::kSyntax:
      return Status::InvalidArgument(fmt::format("request body is not valid JSON: {}", parsed.message));
  }
  if (!parsed.value.is_object()) {
    return Status::InvalidArgument(
        fmt::format("request body must be a JSON object, got {}", parsed.value.type_name()));
  }
  return std::move(parsed.value);
}

const RequestJson* find_field(const RequestJson& object, std::string_view name) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string string_or_empty(const RequestJson& object, std::string_view name) {
  if (!object.is_object()) return "";
  const RequestJson* v = find_field(object, name);
  return v && v->is_string() ? v->get<std::string>() : "";
}

std::string describe_value(const RequestJson& value) {
  constexpr size_t kMaxChars = 40;
  // Keys sorted, as error messages have always shown them.
  std::string text = json(value).dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > kMaxChars) text = text.substr(0, kMaxChars) + "...";
  return text;
}

namespace {

Status range_error(std::string_view name, std::string_view what, const RequestJson& v) {
  return Status::InvalidArgument(
      fmt::format("'{}' must be {}, got {}", name, what, describe_value(v)));
}

}  // namespace

Status read_float(const RequestJson& object, std::string_view name, double lo, double hi, float* out) {
  const RequestJson* v = find_field(object, name);
  if (!v) return Status::Ok();
  if (!v->is_number() || !(v->get<double>() >= lo && v->get<double>() <= hi)) {
    return range_error(name, fmt::format("a number in [{}, {}]", lo, hi), *v);
  }
  *out = static_cast<float>(v->get<double>());
  return Status::Ok();
}

Status read_int(const RequestJson& object, std::string_view name, int64_t lo, int64_t hi, int* out) {
  const RequestJson* v = find_field(object, name);
  if (!v) return Status::Ok();
  bool integral = v->is_number_integer() ||
                  (v->is_number_float() && std::nearbyint(v->get<double>()) == v->get<double>() &&
                   std::fabs(v->get<double>()) < 9e15);
  if (!integral) return range_error(name, fmt::format("an integer in [{}, {}]", lo, hi), *v);
  int64_t value = v->is_number_unsigned()
                      ? static_cast<int64_t>(std::min<uint64_t>(v->get<uint64_t>(), INT64_MAX))
                      : (v->is_number_integer() ? v->get<int64_t>()
                                                : static_cast<int64_t>(v->get<double>()));
  if (value < lo || value > hi) {
    return range_error(name, fmt::format("an integer in [{}, {}]", lo, hi), *v);
  }
  *out = static_cast<int>(value);
  return Status::Ok();
}

Status read_uint64(const RequestJson& object, std::string_view name, uint64_t* out) {
  const RequestJson* v = find_field(object, name);
  if (!v) return Status::Ok();
  if (v->is_number_unsigned()) {
    *out = v->get<uint64_t>();
  } else if (v->is_number_integer()) {
    // Negative seeds are common in clients; keep their bits so each one is its own stream.
    *out = static_cast<uint64_t>(v->get<int64_t>());
  } else {
    return range_error(name, "an integer", *v);
  }
  return Status::Ok();
}

Status read_bool(const RequestJson& object, std::string_view name, bool* out) {
  const RequestJson* v = find_field(object, name);
  if (!v) return Status::Ok();
  if (!v->is_boolean()) return range_error(name, "true or false", *v);
  *out = v->get<bool>();
  return Status::Ok();
}

Status read_string(const RequestJson& object, std::string_view name, std::string* out) {
  const RequestJson* v = find_field(object, name);
  if (!v) return Status::Ok();
  if (!v->is_string()) return range_error(name, "a string", *v);
  *out = v->get<std::string>();
  return Status::Ok();
}

Status read_string_list(const RequestJson& object, std::string_view name, size_t max_items,
                        std::vector<std::string>* out) {
  const RequestJson* v = find_field(object, name);
  if (!v) return Status::Ok();
  std::vector<std::string> items;
  if (v->is_string()) {
    items.push_back(v->get<std::string>());
  } else if (v->is_array()) {
    for (const RequestJson& item : *v) {
      if (!item.is_string()) {
        return range_error(name, "a string or an array of strings", *v);
      }
      items.push_back(item.get<std::string>());
    }
  } else {
    return range_error(name, "a string or an array of strings", *v);
  }
  if (items.size() > max_items) {
    return Status::InvalidArgument(
        fmt::format("'{}' has {} entries; at most {} are allowed", name, items.size(), max_items));
  }
  for (const auto& s : items) {
    if (s.empty()) return Status::InvalidArgument(fmt::format("'{}' holds an empty string", name));
  }
  *out = std::move(items);
  return Status::Ok();
}

Status reject_if_set(const RequestJson& object, std::string_view name) {
  const RequestJson* v = find_field(object, name);
  if (!v) return Status::Ok();
  bool empty = (v->is_boolean() && !v->get<bool>()) ||
               ((v->is_array() || v->is_object() || v->is_string()) && v->empty());
  if (v->is_string()) empty = v->get_ref<const std::string&>().empty();
  if (empty) return Status::Ok();
  return Status::Unsupported(fmt::format("'{}' is not supported by this server", name));
}

}  // namespace strata::server
