#include "chat/jinja_json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "chat/jinja_pystr.h"

namespace strata::jinja {
namespace {

// Works for nlohmann::json (keys sorted) and nlohmann::ordered_json (keys as inserted): a dict
// gets the object's keys in the object's order. Keys of a JSON object are unique, so they are
// appended without the lookup Dict::set makes (which would make a large object quadratic).
template <typename Json>
Result<Value> from_json_at(const Json& json, int depth) {
  if (depth > kMaxJsonDepth) {
    return Status::InvalidArgument("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  switch (json.type()) {
    case Json::value_t::null: return Value::None();
    case Json::value_t::boolean: return Value::Bool(json.template get<bool>());
    case Json::value_t::number_integer: return Value::Int(json.template get<int64_t>());
    case Json::value_t::number_unsigned: {
      uint64_t u = json.template get<uint64_t>();
      if (u > static_cast<uint64_t>(INT64_MAX)) return Value::Float(static_cast<double>(u));
      return Value::Int(static_cast<int64_t>(u));
    }
    case Json::value_t::number_float: return Value::Float(json.template get<double>());
    case Json::value_t::string: return Value::String(json.template get<std::string>());
    case Json::value_t::array: {
      Value::List items;
      items.reserve(json.size());
      for (const auto& item : json) {
        STRATA_ASSIGN_OR_RETURN(Value v, from_json_at(item, depth + 1));
        items.push_back(std::move(v));
      }
      return Value::MakeInputList(std::move(items));
    }
    case Json::value_t::object: {
      Dict dict;
      for (const auto& [key, item] : json.items()) {
        STRATA_ASSIGN_OR_RETURN(Value v, from_json_at(item, depth + 1));
        dict.append_new_key(key, std::move(v));
      }
      return Value::MakeDict(std::move(dict));
    }
    default: return Status::InvalidArgument("JSON value of unsupported type (binary or discarded)");
  }
}

void append_json_string(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          *out += buf;
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

class JsonWriter {
 public:
  JsonWriter(int indent, bool sort_keys, size_t max_bytes)
      : indent_(indent), sort_keys_(sort_keys), max_bytes_(max_bytes) {}

  // Checked before every value, so the text overshoots the limit by at most one string.
  Status write(const Value& v, int depth) {
    if (depth > Value::kMaxNesting) return Status::InvalidArgument("tojson: value nested too deeply (circular?)");
    if (out_.size() > max_bytes_) {
      return Status::ResourceExhausted("tojson: output exceeds the template's limit of " + std::to_string(max_bytes_) +
                                       " bytes");
    }
    switch (v.kind()) {
      case Value::Kind::kNone: out_ += "null"; return Status::Ok();
      case Value::Kind::kBool: out_ += v.as_bool() ? "true" : "false"; return Status::Ok();
      case Value::Kind::kInt: out_ += std::to_string(v.as_int()); return Status::Ok();
      case Value::Kind::kFloat: write_float(v.as_double()); return Status::Ok();
      case Value::Kind::kString: append_json_string(v.as_string(), &out_); return Status::Ok();
      case Value::Kind::kList: return write_list(v.as_list(), depth);
      case Value::Kind::kDict: return write_dict(v.as_dict(), depth);
      default:
        return Status::InvalidArgument(std::string("tojson: object of type '") + v.type_name() +
                                       "' is not JSON serializable");
    }
  }

  std::string take() { return std::move(out_); }

 private:
  void write_float(double d) {
    if (std::isnan(d)) {
      out_ += "NaN";
    } else if (std::isinf(d)) {
      out_ += d < 0 ? "-Infinity" : "Infinity";
    } else {
      out_ += python_float_repr(d);
    }
  }

  // Before an item: the separator and, with an indent, a newline at the item's depth.
  void item_prefix(bool first, int depth) {
    if (!first) out_ += indent_ >= 0 ? "," : ", ";
    if (indent_ >= 0) {
      out_.push_back('\n');
      out_.append(static_cast<size_t>(indent_) * static_cast<size_t>(depth), ' ');
    }
  }

  void close(char bracket, int depth) {
    if (indent_ >= 0) {
      out_.push_back('\n');
      out_.append(static_cast<size_t>(indent_) * static_cast<size_t>(depth), ' ');
    }
    out_.push_back(bracket);
  }

  Status write_list(const Value::List& items, int depth) {
    if (items.empty()) {
      out_ += "[]";
      return Status::Ok();
    }
    out_.push_back('[');
    for (size_t i = 0; i < items.size(); ++i) {
      item_prefix(i == 0, depth + 1);
      STRATA_RETURN_IF_ERROR(write(items[i], depth + 1));
    }
    close(']', depth);
    return Status::Ok();
  }

  Status write_dict(const Dict& dict, int depth) {
    if (dict.size() == 0) {
      out_ += "{}";
      return Status::Ok();
    }
    std::vector<const std::pair<std::string, Value>*> entries;
    for (const auto& entry : dict.entries()) entries.push_back(&entry);
    if (sort_keys_) {
      std::stable_sort(entries.begin(), entries.end(), [](auto* a, auto* b) { return a->first < b->first; });
    }
    out_.push_back('{');
    for (size_t i = 0; i < entries.size(); ++i) {
      item_prefix(i == 0, depth + 1);
      append_json_string(Dict::key_text(entries[i]->first), &out_);  // json.dumps writes an int key as its digits
      out_ += ": ";
      STRATA_RETURN_IF_ERROR(write(entries[i]->second, depth + 1));
    }
    close('}', depth);
    return Status::Ok();
  }

  int indent_;
  bool sort_keys_;
  size_t max_bytes_;
  std::string out_;
};

}  // namespace

Result<Value> value_from_json(const nlohmann::json& json) { return from_json_at(json, 0); }

Result<Value> value_from_json(const nlohmann::ordered_json& json) { return from_json_at(json, 0); }

Result<std::string> value_to_json(const Value& value, int indent, bool sort_keys, size_t max_bytes) {
  JsonWriter writer(indent, sort_keys, max_bytes);
  STRATA_RETURN_IF_ERROR(writer.write(value, 0));
  std::string text = writer.take();
  if (text.size() > max_bytes) {
    return Status::ResourceExhausted("tojson: output exceeds the template's limit of " + std::to_string(max_bytes) +
                                     " bytes");
  }
  return text;
}

}  // namespace strata::jinja
