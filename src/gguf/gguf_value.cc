#include "gguf/gguf_value.h"

#include <cstdint>
#include <limits>
#include <utility>

namespace strata {

const char* gguf_type_name(GgufType type) {
  switch (type) {
    case GgufType::kU8: return "u8";
    case GgufType::kI8: return "i8";
    case GgufType::kU16: return "u16";
    case GgufType::kI16: return "i16";
    case GgufType::kU32: return "u32";
    case GgufType::kI32: return "i32";
    case GgufType::kF32: return "f32";
    case GgufType::kBool: return "bool";
    case GgufType::kString: return "string";
    case GgufType::kArray: return "array";
    case GgufType::kU64: return "u64";
    case GgufType::kI64: return "i64";
    case GgufType::kF64: return "f64";
  }
  return "unknown";
}

namespace {

bool is_unsigned(GgufType t) {
  return t == GgufType::kU8 || t == GgufType::kU16 || t == GgufType::kU32 || t == GgufType::kU64 ||
         t == GgufType::kBool;
}

bool is_signed(GgufType t) {
  return t == GgufType::kI8 || t == GgufType::kI16 || t == GgufType::kI32 || t == GgufType::kI64;
}

}  // namespace

std::optional<uint64_t> GgufValue::as_uint() const {
  if (is_unsigned(type)) return u;
  if (is_signed(type) && i >= 0) return static_cast<uint64_t>(i);
  return std::nullopt;
}

std::optional<int64_t> GgufValue::as_int() const {
  if (is_signed(type)) return i;
  if (is_unsigned(type) && u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return static_cast<int64_t>(u);
  }
  return std::nullopt;
}

std::optional<double> GgufValue::as_float() const {
  if (type == GgufType::kF32 || type == GgufType::kF64) return f;
  if (is_signed(type)) return static_cast<double>(i);
  if (is_unsigned(type) && type != GgufType::kBool) return static_cast<double>(u);
  return std::nullopt;
}

std::optional<bool> GgufValue::as_bool() const {
  if (type == GgufType::kBool) return u != 0;
  return std::nullopt;
}

const std::string* GgufValue::as_string() const { return type == GgufType::kString ? &str : nullptr; }

size_t GgufValue::array_size() const {
  if (type != GgufType::kArray) return 0;
  if (!array.empty()) return array.size();
  if (elem_type == GgufType::kString) return array_str.size();
  if (is_unsigned(elem_type)) return array_u.size();
  if (is_signed(elem_type)) return array_i.size();
  if (elem_type == GgufType::kF32 || elem_type == GgufType::kF64) return array_f.size();
  return 0;
}

GgufValue GgufValue::item(size_t k) const {
  if (!array.empty()) return array[k];
  GgufValue x;
  x.type = elem_type;
  if (elem_type == GgufType::kString) x.str = array_str[k];
  else if (is_unsigned(elem_type)) x.u = array_u[k];
  else if (is_signed(elem_type)) x.i = array_i[k];
  else x.f = array_f[k];
  return x;
}

std::optional<uint64_t> GgufValue::uint_at(size_t k) const {
  if (!array.empty()) return array[k].as_uint();
  if (is_unsigned(elem_type)) return array_u[k];
  if (is_signed(elem_type) && array_i[k] >= 0) return static_cast<uint64_t>(array_i[k]);
  return std::nullopt;
}

std::optional<int64_t> GgufValue::int_at(size_t k) const {
  if (!array.empty()) return array[k].as_int();
  if (is_signed(elem_type)) return array_i[k];
  if (is_unsigned(elem_type) && array_u[k] <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return static_cast<int64_t>(array_u[k]);
  }
  return std::nullopt;
}

std::optional<double> GgufValue::float_at(size_t k) const {
  if (!array.empty()) return array[k].as_float();
  if (elem_type == GgufType::kF32 || elem_type == GgufType::kF64) return array_f[k];
  if (is_signed(elem_type)) return static_cast<double>(array_i[k]);
  if (is_unsigned(elem_type) && elem_type != GgufType::kBool) return static_cast<double>(array_u[k]);
  return std::nullopt;
}

const std::string* GgufValue::string_at(size_t k) const {
  if (!array.empty()) return array[k].as_string();
  return elem_type == GgufType::kString ? &array_str[k] : nullptr;
}

const GgufValue* GgufValue::array_at(size_t k) const {
  return !array.empty() && array[k].type == GgufType::kArray ? &array[k] : nullptr;
}

GgufValue GgufValue::U32(uint32_t v) {
  GgufValue x;
  x.type = GgufType::kU32;
  x.u = v;
  return x;
}

GgufValue GgufValue::U64(uint64_t v) {
  GgufValue x;
  x.type = GgufType::kU64;
  x.u = v;
  return x;
}

GgufValue GgufValue::I32(int32_t v) {
  GgufValue x;
  x.type = GgufType::kI32;
  x.i = v;
  return x;
}

GgufValue GgufValue::F32(float v) {
  GgufValue x;
  x.type = GgufType::kF32;
  x.f = v;
  return x;
}

GgufValue GgufValue::Bool(bool v) {
  GgufValue x;
  x.type = GgufType::kBool;
  x.u = v ? 1 : 0;
  return x;
}

GgufValue GgufValue::String(std::string v) {
  GgufValue x;
  x.type = GgufType::kString;
  x.str = std::move(v);
  return x;
}

GgufValue GgufValue::Array(GgufType elem_type, std::vector<GgufValue> items) {
  GgufValue x;
  x.type = GgufType::kArray;
  x.elem_type = elem_type;
  bool typed = elem_type != GgufType::kArray;
  for (const GgufValue& item : items) typed = typed && item.type == elem_type;
  if (!typed) {
    x.array = std::move(items);
    return x;
  }
  for (GgufValue& item : items) {
    if (elem_type == GgufType::kString) x.array_str.push_back(std::move(item.str));
    else if (is_unsigned(elem_type)) x.array_u.push_back(item.u);
    else if (is_signed(elem_type)) x.array_i.push_back(item.i);
    else x.array_f.push_back(item.f);
  }
  return x;
}

GgufValue GgufValue::StringArray(std::vector<std::string> items) {
  GgufValue x;
  x.type = GgufType::kArray;
  x.elem_type = GgufType::kString;
  x.array_str = std::move(items);
  return x;
}

GgufValue GgufValue::F32Array(const std::vector<float>& items) {
  GgufValue x;
  x.type = GgufType::kArray;
  x.elem_type = GgufType::kF32;
  x.array_f.assign(items.begin(), items.end());
  return x;
}

GgufValue GgufValue::I32Array(const std::vector<int32_t>& items) {
  GgufValue x;
  x.type = GgufType::kArray;
  x.elem_type = GgufType::kI32;
  x.array_i.assign(items.begin(), items.end());
  return x;
}

}  // namespace strata
