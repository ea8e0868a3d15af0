#include "gguf/gguf_value_reader.h"

#include <string>
#include <type_traits>

namespace strata {

namespace {

// Smallest encoding of one value of a type; bounds array counts by the bytes left.
size_t min_encoded_bytes(GgufType type) {
  switch (type) {
    case GgufType::kU8: case GgufType::kI8: case GgufType::kBool: return 1;
    case GgufType::kU16: case GgufType::kI16: return 2;
    case GgufType::kU32: case GgufType::kI32: case GgufType::kF32: return 4;
    case GgufType::kU64: case GgufType::kI64: case GgufType::kF64: return 8;
    case GgufType::kString: return 8;   // the length
    case GgufType::kArray: return 12;   // element type + count
  }
  return 1;
}

std::string for_key(std::string_view what, std::string_view key) {
  return std::string(what) + " of key '" + std::string(key) + "'";
}

// Widens to the GgufValue field of T's kind (u, i or f): readers see one width per kind.
template <typename T>
Status read_number(GgufCursor& c, std::string_view key, GgufValue* out) {
  T v{};
  STRATA_RETURN_IF_ERROR(c.read(&v, for_key("value", key)));
  if constexpr (std::is_floating_point_v<T>) {
    out->f = v;
  } else if constexpr (std::is_signed_v<T>) {
    out->i = v;
  } else {
    out->u = v;
  }
  return Status::Ok();
}

Status read_array(GgufCursor& c, std::string_view key, int depth, GgufValue* out) {
  size_t start = c.offset();
  if (depth >= kMaxArrayDepth) {
    return c.unsupported(start, for_key("arrays nested more than " + std::to_string(kMaxArrayDepth) + " deep", key));
  }
  GgufType elem_type{};
  STRATA_RETURN_IF_ERROR(read_gguf_type(c, key, &elem_type));
  uint64_t count = 0;
  STRATA_RETURN_IF_ERROR(c.read(&count, for_key("array count", key)));
  size_t min_bytes = min_encoded_bytes(elem_type);
  if (count > c.remaining() / min_bytes) {
    return c.corrupt(start + 4, for_key("array count " + std::to_string(count) + " of " +
                                            gguf_type_name(elem_type) + " needs more than the " +
                                            std::to_string(c.remaining()) + " bytes left in the file", key));
  }
  out->elem_type = elem_type;
  out->array.clear();
  out->array_u.clear();
  out->array_i.clear();
  out->array_f.clear();
  out->array_str.clear();
  const size_t n = static_cast<size_t>(count);
  if (elem_type == GgufType::kArray) {
    out->array.assign(n, GgufValue{});
    for (GgufValue& item : out->array) STRATA_RETURN_IF_ERROR(read_gguf_value(c, elem_type, key, depth + 1, &item));
    return Status::Ok();
  }
  if (elem_type == GgufType::kString) {
    out->array_str.resize(n);
    for (std::string& item : out->array_str) STRATA_RETURN_IF_ERROR(c.read_string(&item, for_key("string", key)));
    return Status::Ok();
  }
  // Scalars: each read as a value of its own (the same widening and bool rule), kept by kind.
  const bool is_float = elem_type == GgufType::kF32 || elem_type == GgufType::kF64;
  const bool is_signed = elem_type == GgufType::kI8 || elem_type == GgufType::kI16 || elem_type == GgufType::kI32 ||
                         elem_type == GgufType::kI64;
  if (is_float) out->array_f.reserve(n);
  else if (is_signed) out->array_i.reserve(n);
  else out->array_u.reserve(n);
  GgufValue item;
  for (size_t k = 0; k < n; ++k) {
    STRATA_RETURN_IF_ERROR(read_gguf_value(c, elem_type, key, depth + 1, &item));
    if (is_float) out->array_f.push_back(item.f);
    else if (is_signed) out->array_i.push_back(item.i);
    else out->array_u.push_back(item.u);
  }
  return Status::Ok();
}

}  // namespace

Status read_gguf_type(GgufCursor& c, std::string_view key, GgufType* out) {
  size_t start = c.offset();
  uint32_t id = 0;
  STRATA_RETURN_IF_ERROR(c.read(&id, for_key("value type", key)));
  if (id > static_cast<uint32_t>(GgufType::kF64)) {
    return c.corrupt(start, for_key("unknown value type id " + std::to_string(id), key));
  }
  *out = static_cast<GgufType>(id);
  return Status::Ok();
}

Status read_gguf_value(GgufCursor& c, GgufType type, std::string_view key, int depth, GgufValue* out) {
  out->type = type;
  switch (type) {
    case GgufType::kU8: return read_number<uint8_t>(c, key, out);
    case GgufType::kU16: return read_number<uint16_t>(c, key, out);
    case GgufType::kU32: return read_number<uint32_t>(c, key, out);
    case GgufType::kU64: return read_number<uint64_t>(c, key, out);
    case GgufType::kI8: return read_number<int8_t>(c, key, out);
    case GgufType::kI16: return read_number<int16_t>(c, key, out);
    case GgufType::kI32: return read_number<int32_t>(c, key, out);
    case GgufType::kI64: return read_number<int64_t>(c, key, out);
    case GgufType::kF32: return read_number<float>(c, key, out);
    case GgufType::kF64: return read_number<double>(c, key, out);
    case GgufType::kBool: {
      STRATA_RETURN_IF_ERROR(read_number<uint8_t>(c, key, out));
      out->u = out->u != 0 ? 1 : 0;
      return Status::Ok();
    }
    case GgufType::kString: return c.read_string(&out->str, for_key("string", key));
    case GgufType::kArray: return read_array(c, key, depth, out);
  }
  return c.corrupt(c.offset(), for_key("unknown value type", key));
}

}  // namespace strata
