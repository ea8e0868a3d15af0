#include "grammar/json_schema.h"

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "grammar/number_range.h"
#include "grammar/schema_pieces.h"

namespace strata::grammar {

namespace {

using json = SchemaJson;

constexpr int kMaxSchemaDepth = 64;
constexpr int kMaxCount = 10000;

const std::set<std::string>& annotation_keywords() {
  static const std::set<std::string> k = {"title", "description", "default", "examples", "$schema", "$id",
                                          "$comment", "deprecated", "readOnly", "writeOnly", "strict", "$defs",
                                          "definitions"};
  return k;
}

const std::set<std::string>& constraint_keywords() {
  static const std::set<std::string> k = {
      "type", "properties", "required", "additionalProperties", "items", "prefixItems", "enum", "const",
      "anyOf", "oneOf", "allOf", "$ref", "minItems", "maxItems", "minLength", "maxLength", "minimum",
      "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern", "format"};
  return k;
}

class SchemaCompiler {
 public:
  SchemaCompiler(const json& root, std::string prefix) : root_(root), prefix_(std::move(prefix)) {}

  Result<SchemaGbnf> run() {
    STRATA_ASSIGN_OR_RETURN(std::string expr, visit(root_, "#", 0));
    return SchemaGbnf{expr, rules_};
  }

 private:
  Status error(const std::string& where, const std::string& what) const {
    return Status::InvalidArgument(fmt::format("JSON schema at '{}': {}", where, what));
  }

  std::string add_rule(const std::string& hint, const std::string& body) {
    std::string name = prefix_ + "s" + std::to_string(++n_rules_);
    for (char c : hint) {
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) name += c;
      if (name.size() > 40) break;
    }
    rules_ += name + " ::= " + body + "\n";
    return name;
  }

  Result<int> read_count(const json& schema, const char* key, const std::string& where, int fallback) {
    const auto it = schema.find(key);
    if (it == schema.end()) return fallback;
    if (!it->is_number_integer() || it->get<long long>() < 0 || it->get<long long>() > kMaxCount) {
      return error(where, fmt::format("'{}' must be an integer in [0, {}]", key, kMaxCount));
    }
    return it->get<int>();
  }

  Status check_keywords(const json& schema, const std::string& where) const {
    for (const auto& [key, value] : schema.items()) {
      if (!annotation_keywords().count(key) && !constraint_keywords().count(key)) {
        return error(where, fmt::format("unsupported keyword '{}'", key));
      }
    }
    return Status::Ok();
  }

  Result<const json*> resolve(const std::string& ref, const std::string& where) {
    if (ref == "#") return &root_;
    if (!ref.starts_with("#/")) return error(where, fmt::format("'$ref' \"{}\" is not a local reference (#/...)", ref));
    const json* at = &root_;
    size_t begin = 2;
    while (begin <= ref.size()) {
      size_t end = ref.find('/', begin);
      if (end == std::string::npos) end = ref.size();
      std::string part = ref.substr(begin, end - begin);
      for (size_t p; (p = part.find("~1")) != std::string::npos;) part.replace(p, 2, "/");
      for (size_t p; (p = part.find("~0")) != std::string::npos;) part.replace(p, 2, "~");
      at = at->is_object() ? member(*at, part) : nullptr;
      if (!at) return error(where, fmt::format("'$ref' \"{}\" points nowhere", ref));
      begin = end + 1;
    }
    return at;
  }

  // object's member named key, or nullptr; through an index built on the first lookup.
  const json* member(const json& object, const std::string& key) {
    auto [index, fresh] = member_index_.try_emplace(&object);
    if (fresh) {
      for (const auto& [name, value] : object.items()) index->second.emplace(name, &value);
    }
    const auto it = index->second.find(key);
    return it == index->second.end() ? nullptr : it->second;
  }

  Result<std::string> visit_ref(const std::string& ref, const std::string& where) {
    if (auto it = ref_rules_.find(ref); it != ref_rules_.end()) return it->second;
    STRATA_ASSIGN_OR_RETURN(const json* target, resolve(ref, where));
    const std::string name = prefix_ + "ref" + std::to_string(++n_rules_);
    ref_rules_[ref] = name;
    STRATA_ASSIGN_OR_RETURN(std::string body, visit(*target, ref, 0));
    rules_ += name + " ::= " + body + "\n";
    return name;
  }

  Result<std::string> visit(const json& schema, const std::string& where, int depth) {
    if (depth > kMaxSchemaDepth) return error(where, "schema nested too deeply");
    if (schema.is_boolean()) {
      if (!schema.get<bool>()) return error(where, "the schema false matches nothing");
      return std::string("value");
    }
    if (!schema.is_object()) return error(where, "a schema must be an object or a boolean");
    STRATA_RETURN_IF_ERROR(check_keywords(schema, where));
    if (auto ref = schema.find("$ref"); ref != schema.end()) {
      if (!ref->is_string()) return error(where, "'$ref' must be a string");
      return visit_ref(ref->get<std::string>(), where);
    }
    if (auto c = schema.find("const"); c != schema.end()) return gbnf_literal(c->dump());
    if (auto e = schema.find("enum"); e != schema.end()) {
      if (!e->is_array() || e->empty()) return error(where, "'enum' must be a non-empty array");
      std::vector<std::string> alternatives;
      for (const json& v : *e) alternatives.push_back(gbnf_literal(v.dump()));
      return gbnf_alternatives(alternatives);
    }
    for (const char* key : {"anyOf", "oneOf"}) {
      if (auto list = schema.find(key); list != schema.end()) return visit_any_of(*list, where + "/" + key, depth);
    }
    if (auto all = schema.find("allOf"); all != schema.end()) return visit_all_of(schema, *all, where, depth);
    return visit_typed(schema, where, depth);
  }

  Result<std::string> visit_any_of(const json& list, const std::string& where, int depth) {
    if (!list.is_array() || list.empty()) return error(where, "must be a non-empty array of schemas");
    std::vector<std::string> alternatives;
    for (size_t i = 0; i < list.size(); ++i) {
      STRATA_ASSIGN_OR_RETURN(std::string alt, visit(list[i], fmt::format("{}/{}", where, i), depth + 1));
      alternatives.push_back(alt);
    }
    return gbnf_alternatives(alternatives);
  }

  // allOf of object schemas: one object schema with every part's properties (the schema's own
  // first, then each part's in order; a later schema for a name replaces the earlier one in its
  // place) and requirements.
  Result<std::string> visit_all_of(const json& schema, const json& list, const std::string& where, int depth) {
    if (!list.is_array() || list.empty()) return error(where + "/allOf", "must be a non-empty array of schemas");
    json merged = schema;
    merged.erase("allOf");
    merged["type"] = "object";
    json::object_t properties;
    std::unordered_map<std::string_view, size_t> property_index;
    auto add_properties = [&](const json& from) {
      for (const auto& [name, prop] : from.items()) {
        const auto [it, fresh] = property_index.try_emplace(name, properties.size());
        if (fresh) {
          properties.json::object_t::Container::emplace_back(name, prop);
        } else {
          properties.json::object_t::Container::operator[](it->second).second = prop;
        }
      }
    };
    if (auto own = schema.find("properties"); own != schema.end()) {
      if (!own->is_object()) return error(where, "'properties' must be an object");
      add_properties(*own);
    }
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string at = fmt::format("{}/allOf/{}", where, i);
      const json* part = &list[i];
      if (part->is_object() && part->contains("$ref") && (*part)["$ref"].is_string()) {
        STRATA_ASSIGN_OR_RETURN(part, resolve((*part)["$ref"].get<std::string>(), at));
      }
      const bool is_object = part->is_object() && (part->value("type", json("object")) == "object");
      if (!is_object) return error(at, "'allOf' is supported for object schemas only");
      STRATA_RETURN_IF_ERROR(check_keywords(*part, at));
      for (const auto& [key, value] : part->items()) {
        if (key == "properties") {
          if (!value.is_object()) return error(at, "'properties' must be an object");
          add_properties(value);
        } else if (key == "required" && value.is_array()) {
          for (const json& r : value) merged["required"].push_back(r);
        } else if (key != "type" && !annotation_keywords().count(key)) {
          merged[key] = value;
        }
      }
    }
    if (!properties.empty()) merged["properties"] = json(std::move(properties));
    return visit(merged, where, depth + 1);
  }

  Result<std::string> visit_typed(const json& schema, const std::string& where, int depth) {
    json type = schema.value("type", json());
    if (type.is_null()) {
      if (schema.contains("properties") || schema.contains("additionalProperties")) type = "object";
      else if (schema.contains("items") || schema.contains("prefixItems")) type = "array";
      else if (schema.contains("pattern") || schema.contains("format") || schema.contains("minLength") ||
               schema.contains("maxLength")) type = "string";
      else if (schema.contains("minimum") || schema.contains("maximum")) type = "integer";
      else return std::string("value");
    }
    if (type.is_array()) {
      std::vector<std::string> alternatives;
      for (const json& t : type) {
        json one = schema;
        one["type"] = t;
        STRATA_ASSIGN_OR_RETURN(std::string alt, visit_typed(one, where, depth + 1));
        alternatives.push_back(alt);
      }
      return gbnf_alternatives(alternatives);
    }
    const std::string t = type.is_string() ? type.get<std::string>() : "";
    if (t == "string") return visit_string(schema, where);
    if (t == "integer") return visit_integer(schema, where);
    if (t == "number") return visit_number(schema, where);
    if (t == "boolean" || t == "null") return t;
    if (t == "object") return visit_object(schema, where, depth);
    if (t == "array") return visit_array(schema, where, depth);
    return error(where, fmt::format("unsupported 'type' {}", type.dump()));
  }

  Result<std::string> visit_string(const json& schema, const std::string& where) {
    if (auto f = schema.find("format"); f != schema.end()) {
      Result<std::string> out = string_format_gbnf(f->is_string() ? f->get<std::string>() : f->dump());
      if (!out.ok()) return error(where, std::string(out.status().message()));
      return add_rule("fmt", *out);
    }
    if (auto p = schema.find("pattern"); p != schema.end()) {
      if (!p->is_string()) return error(where, "'pattern' must be a string");
      Result<std::string> out = pattern_gbnf(p->get<std::string>());
      if (!out.ok()) return error(where, std::string(out.status().message()));
      return add_rule("pattern", *out);
    }
    STRATA_ASSIGN_OR_RETURN(int min, read_count(schema, "minLength", where, 0));
    STRATA_ASSIGN_OR_RETURN(int max, read_count(schema, "maxLength", where, -1));
    if (max >= 0 && max < min) return error(where, "'maxLength' is below 'minLength'");
    if (min == 0 && max < 0) return std::string("string");
    return add_rule("str", "\"\\\"\" " + string_length_gbnf(min, max) + " \"\\\"\"");
  }

  // minimum / maximum / exclusiveMinimum / exclusiveMaximum on a number: a decimal range
  // (number_range.h; an exclusive bound becomes an inclusive one a step inside it).
  Result<std::string> visit_number(const json& schema, const std::string& where) {
    std::optional<Decimal> lo, hi;
    for (const char* key : {"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"}) {
      auto it = schema.find(key);
      if (it == schema.end()) continue;
      if (!it->is_number() || std::abs(it->get<double>()) > 1e15) {
        return error(where, fmt::format("'{}' must be a number within +-1e15", key));
      }
      const std::string k = key;
      const bool lower = k == "minimum" || k == "exclusiveMinimum";
      std::optional<Decimal> bound = decimal_of(it->get<double>());
      if (k.starts_with("exclusive")) bound = inclusive_of_exclusive(*bound, lower);
      if (!bound) return error(where, fmt::format("'{}' on a number must be below 1e14 in magnitude", key));
      std::optional<Decimal>& side = lower ? lo : hi;
      if (!side || (compare_decimals(*bound, *side) > 0) == lower) side = bound;
    }
    if (!lo && !hi) return std::string("number");
    if (lo && hi && compare_decimals(*lo, *hi) > 0) return error(where, "no number lies between the minimum and the maximum");
    return add_rule("num", number_range_gbnf(lo ? &*lo : nullptr, hi ? &*hi : nullptr));
  }

  Result<std::string> visit_integer(const json& schema, const std::string& where) {
    long long lo = 0, hi = 0;
    bool has_lo = false, has_hi = false;
    for (const char* key : {"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"}) {
      auto it = schema.find(key);
      if (it == schema.end()) continue;
      if (!it->is_number() || std::abs(it->get<double>()) > 1e15) {
        return error(where, fmt::format("'{}' must be a number within +-1e15", key));
      }
      const double v = it->get<double>();
      const std::string k = key;
      if (k == "minimum" || k == "exclusiveMinimum") {
        const long long bound = k == "minimum" ? static_cast<long long>(std::ceil(v)) : static_cast<long long>(std::floor(v)) + 1;
        lo = has_lo ? std::max(lo, bound) : bound;
        has_lo = true;
      } else {
        const long long bound = k == "maximum" ? static_cast<long long>(std::floor(v)) : static_cast<long long>(std::ceil(v)) - 1;
        hi = has_hi ? std::min(hi, bound) : bound;
        has_hi = true;
      }
    }
    if (!has_lo && !has_hi) return std::string("integer");
    if (has_lo && has_hi && hi < lo) return error(where, "no integer lies between the minimum and the maximum");
    return add_rule("int", integer_range_gbnf(has_lo ? &lo : nullptr, has_hi ? &hi : nullptr));
  }

  Result<std::string> visit_object(const json& schema, const std::string& where, int depth) {
    std::vector<std::string> kvs;
    std::vector<bool> required;
    std::set<std::string> required_names;
    if (auto r = schema.find("required"); r != schema.end()) {
      if (!r->is_array()) return error(where, "'required' must be an array of names");
      for (const json& name : *r) {
        if (!name.is_string()) return error(where, "'required' must be an array of names");
        required_names.insert(name.get<std::string>());
      }
    }
    if (auto props = schema.find("properties"); props != schema.end()) {
      if (!props->is_object()) return error(where, "'properties' must be an object");
      for (const auto& [name, prop] : props->items()) {
        STRATA_ASSIGN_OR_RETURN(std::string value, visit(prop, where + "/properties/" + name, depth + 1));
        kvs.push_back(gbnf_literal(json(name).dump()) + " ws \":\" ws " + value + " ws");
        required.push_back(required_names.erase(name) > 0);
      }
    }
    if (!required_names.empty()) {
      return error(where, fmt::format("required property '{}' is not in 'properties'", *required_names.begin()));
    }
    std::string extra;
    if (auto a = schema.find("additionalProperties"); a != schema.end() && !(a->is_boolean() && !a->get<bool>())) {
      STRATA_ASSIGN_OR_RETURN(std::string value, visit(*a, where + "/additionalProperties", depth + 1));
      extra = "string ws \":\" ws " + value + " ws";
    }
    // tail(i, comma): the properties from i on, written after a comma when one came before.
    const size_t n = kvs.size();
    std::vector<std::array<std::string, 2>> tail(n + 1);
    for (int comma = 0; comma < 2; ++comma) {
      const std::string sep = comma ? "\",\" ws " : "";
      tail[n][comma] = extra.empty() ? "\"\"" : add_rule("extra", "(" + sep + extra + " (\",\" ws " + extra + ")*)?");
    }
    for (size_t i = n; i-- > 0;) {
      for (int comma = 0; comma < 2; ++comma) {
        const std::string sep = comma ? "\",\" ws " : "";
        std::string body = sep + kvs[i] + " " + tail[i + 1][1];
        if (!required[i]) body += " | " + tail[i + 1][comma];
        tail[i][comma] = add_rule("obj", body);
      }
    }
    return add_rule("object", "\"{\" ws " + tail[0][0] + " \"}\"");
  }

  Result<std::string> visit_array(const json& schema, const std::string& where, int depth) {
    STRATA_ASSIGN_OR_RETURN(int min, read_count(schema, "minItems", where, 0));
    STRATA_ASSIGN_OR_RETURN(int max, read_count(schema, "maxItems", where, -1));
    if (max >= 0 && max < min) return error(where, "'maxItems' is below 'minItems'");
    std::vector<std::string> elements;  // the prefix items, in order
    if (auto prefix = schema.find("prefixItems"); prefix != schema.end()) {
      if (!prefix->is_array()) return error(where, "'prefixItems' must be an array of schemas");
      for (size_t i = 0; i < prefix->size() && (max < 0 || static_cast<int>(i) < max); ++i) {
        STRATA_ASSIGN_OR_RETURN(std::string e, visit((*prefix)[i], fmt::format("{}/prefixItems/{}", where, i), depth + 1));
        elements.push_back(e);
      }
    }
    std::string item = "value";
    bool more = true;
    if (auto items = schema.find("items"); items != schema.end()) {
      if (items->is_boolean() && !items->get<bool>()) {
        more = false;
      } else {
        STRATA_ASSIGN_OR_RETURN(item, visit(*items, where + "/items", depth + 1));
      }
    }
    const int k = static_cast<int>(elements.size());
    if (!more && min > k) return error(where, "'minItems' asks for more items than 'prefixItems' allows");
    std::string body = "\"[\" ws";
    for (int i = 0; i < k; ++i) body += (i ? " \",\" ws " : " ") + elements[i] + " ws";
    const int rest_min = std::max(0, min - k);
    const int rest_max = !more ? 0 : max < 0 ? -1 : max - k;
    if (rest_max != 0) {
      const std::string one = item + " ws";
      const std::string next = "(\",\" ws " + one + ")";
      std::string rest;
      if (k > 0) {
        rest = rest_max < 0 ? next + fmt::format("{{{},}}", rest_min) : next + fmt::format("{{{},{}}}", rest_min, rest_max);
      } else if (rest_min == 0) {
        rest = "(" + one + " " + (rest_max < 0 ? next + "*" : next + fmt::format("{{0,{}}}", rest_max - 1)) + ")?";
      } else {
        rest = one + " " + (rest_max < 0 ? next + fmt::format("{{{},}}", rest_min - 1)
                                         : next + fmt::format("{{{},{}}}", rest_min - 1, rest_max - 1));
      }
      body += " " + rest;
    }
    return add_rule("array", body + " \"]\"");
  }

  const json& root_;
  const std::string prefix_;
  std::string rules_;
  std::map<std::string, std::string> ref_rules_;
  // Objects of root_ that $ref paths passed through, by address: their members by name.
  std::unordered_map<const json*, std::unordered_map<std::string_view, const json*>> member_index_;
  int n_rules_ = 0;
};

}  // namespace

Result<SchemaGbnf> json_schema_rules(const json& schema, const std::string& prefix) {
  return SchemaCompiler(schema, prefix).run();
}

Result<std::string> json_schema_to_gbnf(const json& schema) {
  STRATA_ASSIGN_OR_RETURN(SchemaGbnf parts, json_schema_rules(schema, ""));
  return "root ::= " + parts.expr + "\n" + primitive_gbnf_rules() + parts.rules;
}

std::string any_json_gbnf() { return "root ::= object\n" + primitive_gbnf_rules(); }

}  // namespace strata::grammar
