// GgufValue: one metadata value of a GGUF file: a scalar, a string, or an array of values
// (arrays may nest). A plain value type; copyable; not thread-safe to mutate.
//
// An array's items are stored by kind, not as a GgufValue each: a vocabulary's 150-260k tokens,
// scores, types and merges are four vectors of strings and numbers (one GgufValue per item took
// most of a large vocabulary's load time and memory). Numbers are widened as scalars are (u, i or
// f by kind); nested arrays are GgufValues. Items built in memory whose type is not the declared
// elem_type stay GgufValues too, so that the writer can refuse them by name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata {

// On-disk value type ids of the GGUF format.
enum class GgufType : uint32_t {
  kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7,
  kString = 8, kArray = 9, kU64 = 10, kI64 = 11, kF64 = 12,
};

const char* gguf_type_name(GgufType type);

struct GgufValue {
  GgufType type = GgufType::kU32;
  // Exactly one of these is meaningful, chosen by type:
  uint64_t u = 0;                // kU8, kU16, kU32, kU64, kBool (0/1)
  int64_t i = 0;                 // kI8, kI16, kI32, kI64
  double f = 0;                  // kF32, kF64
  std::string str;               // kString
  GgufType elem_type = GgufType::kU8;  // kArray: the declared element type
  // kArray: its items, in the one vector elem_type's kind chooses (array: nested arrays, or
  // built-in-memory items of another type than elem_type).
  std::vector<uint64_t> array_u;
  std::vector<int64_t> array_i;
  std::vector<double> array_f;
  std::vector<std::string> array_str;
  std::vector<GgufValue> array;

  // Lossless conversions; nullopt when the value is of another kind or does not fit.
  std::optional<uint64_t> as_uint() const;   // any unsigned or non-negative signed integer, bool
  std::optional<int64_t> as_int() const;     // any integer that fits in int64
  std::optional<double> as_float() const;    // any float or integer
  std::optional<bool> as_bool() const;
  const std::string* as_string() const;      // nullptr unless kString
  bool is_array() const { return type == GgufType::kArray; }

  // kArray's items (array_size() is 0 for other types); k < array_size(). The *_at conversions
  // read item k as the scalar ones read a value of elem_type.
  size_t array_size() const;
  std::optional<uint64_t> uint_at(size_t k) const;
  std::optional<int64_t> int_at(size_t k) const;
  std::optional<double> float_at(size_t k) const;
  const std::string* string_at(size_t k) const;  // nullptr unless the item is a string
  const GgufValue* array_at(size_t k) const;     // nullptr unless the item is an array
  GgufValue item(size_t k) const;                // a copy of item k as a value of its own

  static GgufValue U32(uint32_t v);
  static GgufValue U64(uint64_t v);
  static GgufValue I32(int32_t v);
  static GgufValue F32(float v);
  static GgufValue Bool(bool v);
  static GgufValue String(std::string v);
  // An array of elem_type: items of that type are stored by kind; when any is of another type
  // all are kept as values (the writer refuses such an array).
  static GgufValue Array(GgufType elem_type, std::vector<GgufValue> items);
  static GgufValue StringArray(std::vector<std::string> items);
  static GgufValue F32Array(const std::vector<float>& items);
  static GgufValue I32Array(const std::vector<int32_t>& items);
};

}  // namespace strata
