#include "gguf/gguf_parser.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <unordered_set>

#include "gguf/gguf_cursor.h"
#include "gguf/gguf_value_reader.h"

namespace strata {

namespace {

// Smallest encodings, used to bound counts by the bytes left before reserving anything.
constexpr size_t kMinKvBytes = 8 + 4 + 1;            // key length, type, one byte of value
constexpr size_t kMinTensorInfoBytes = 8 + 4 + 4 + 8;  // name length, n_dims, type, offset

uint32_t byte_swap32(uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24);
}

Status parse_header(GgufCursor& c, uint32_t* version, uint64_t* n_tensors, uint64_t* n_kv) {
  uint32_t magic = 0;
  STRATA_RETURN_IF_ERROR(c.read(&magic, "magic"));
  if (magic != kGgufMagic) {
    char hex[16];
    std::snprintf(hex, sizeof(hex), "0x%08x", magic);
    return c.corrupt(0, std::string("bad magic ") + hex + " (not a GGUF file)");
  }
  STRATA_RETURN_IF_ERROR(c.read(version, "version"));
  if (*version != 2 && *version != 3) {
    uint32_t swapped = byte_swap32(*version);
    if (swapped == 2 || swapped == 3) return c.unsupported(4, "big-endian GGUF files are not supported");
    return c.unsupported(4, "unsupported GGUF version " + std::to_string(*version) + " (only 2 and 3 are read)");
  }
  STRATA_RETURN_IF_ERROR(c.read(n_tensors, "tensor count"));
  STRATA_RETURN_IF_ERROR(c.read(n_kv, "metadata count"));
  if (*n_tensors > c.remaining() / kMinTensorInfoBytes) {
    return c.corrupt(8, "tensor count " + std::to_string(*n_tensors) + " is more than the " +
                            std::to_string(c.remaining()) + " bytes left can describe");
  }
  if (*n_kv > c.remaining() / kMinKvBytes) {
    return c.corrupt(16, "metadata count " + std::to_string(*n_kv) + " is more than the " +
                             std::to_string(c.remaining()) + " bytes left can hold");
  }
  return Status::Ok();
}

Status check_alignment(const GgufCursor& c, size_t start, const GgufValue& value, GgufPart* out) {
  auto a = value.as_uint();
  if (value.type != GgufType::kU32 || !a || *a == 0 || (*a & (*a - 1)) != 0) {
    return c.corrupt(start, "general.alignment must be a u32 power of two");
  }
  out->alignment = static_cast<size_t>(*a);
  return Status::Ok();
}

Status parse_metadata(GgufCursor& c, uint64_t n_kv, GgufPart* out) {
  std::unordered_set<std::string> seen;
  out->metadata.reserve(static_cast<size_t>(n_kv));
  for (uint64_t k = 0; k < n_kv; ++k) {
    size_t start = c.offset();
    std::string key;
    STRATA_RETURN_IF_ERROR(c.read_string(&key, "metadata key #" + std::to_string(k)));
    if (!seen.insert(key).second) return c.corrupt(start, "duplicate metadata key '" + key + "'");
    GgufType type{};
    STRATA_RETURN_IF_ERROR(read_gguf_type(c, key, &type));
    GgufValue value;
    STRATA_RETURN_IF_ERROR(read_gguf_value(c, type, key, 0, &value));
    if (key == "general.alignment") STRATA_RETURN_IF_ERROR(check_alignment(c, start, value, out));
    out->metadata.emplace_back(std::move(key), std::move(value));
  }
  return Status::Ok();
}

Status parse_dims(GgufCursor& c, size_t start, GgufTensor* t) {
  uint32_t n_dims = 0;
  STRATA_RETURN_IF_ERROR(c.read(&n_dims, "n_dims of tensor '" + t->name + "'"));
  if (n_dims > kGgufMaxDims) {
    return c.corrupt(start, "tensor '" + t->name + "' has n_dims " + std::to_string(n_dims) + " > " +
                                std::to_string(kGgufMaxDims));
  }
  t->dims.resize(n_dims);
  uint64_t n_elements = 1;
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  for (auto& d : t->dims) {
    STRATA_RETURN_IF_ERROR(c.read(&d, "dims of tensor '" + t->name + "'"));
    if (d > kMax || (d != 0 && n_elements > kMax / d)) {
      return c.corrupt(start, "integer overflow: tensor '" + t->name + "' element count exceeds 2^63");
    }
    n_elements *= d;
  }
  t->n_elements = n_elements;
  return Status::Ok();
}

Status parse_tensor_type(GgufCursor& c, size_t start, GgufTensor* t) {
  uint32_t type_id = 0;
  STRATA_RETURN_IF_ERROR(c.read(&type_id, "type of tensor '" + t->name + "'"));
  auto info = dtype_info(type_id);
  if (!info) {
    return c.corrupt(start, "tensor '" + t->name + "' has unknown type id " + std::to_string(type_id));
  }
  t->type = info->type;
  uint64_t row = t->dims.empty() ? 1 : t->dims[0];
  if (row % info->block_size != 0) {
    return c.corrupt(start, "tensor '" + t->name + "' rows of " + std::to_string(row) +
                                " elements are not whole " + std::string(info->name) + " blocks of " +
                                std::to_string(info->block_size));
  }
  auto n_bytes = dtype_tensor_bytes(t->type, t->n_elements);
  if (!n_bytes) return c.corrupt(start, "integer overflow: tensor '" + t->name + "' byte size");
  t->n_bytes = *n_bytes;
  return Status::Ok();
}

Status parse_tensor_infos(GgufCursor& c, uint64_t n_tensors, int part, GgufPart* out) {
  std::unordered_set<std::string> seen;
  out->tensors.reserve(static_cast<size_t>(n_tensors));
  for (uint64_t k = 0; k < n_tensors; ++k) {
    size_t start = c.offset();
    GgufTensor t;
    t.part = part;
    STRATA_RETURN_IF_ERROR(c.read_string(&t.name, "name of tensor #" + std::to_string(k)));
    if (!seen.insert(t.name).second) return c.corrupt(start, "duplicate tensor name '" + t.name + "'");
    STRATA_RETURN_IF_ERROR(parse_dims(c, start, &t));
    STRATA_RETURN_IF_ERROR(parse_tensor_type(c, start, &t));
    STRATA_RETURN_IF_ERROR(c.read(&t.offset, "data offset of tensor '" + t.name + "'"));
    t.file_offset = start;  // provisional: the info's position, until the data section is known
    out->tensors.push_back(std::move(t));
  }
  return Status::Ok();
}

Status bind_tensor_data(const GgufCursor& c, const uint8_t* data, GgufPart* out) {
  size_t size = c.size();
  size_t data_offset = (c.offset() + out->alignment - 1) / out->alignment * out->alignment;
  size_t data_bytes = data_offset < size ? size - data_offset : 0;
  out->data_offset = data_offset;
  for (auto& t : out->tensors) {
    size_t info_offset = t.file_offset;
    if (t.offset % out->alignment != 0) {
      return c.corrupt(info_offset, "tensor '" + t.name + "' data offset " + std::to_string(t.offset) +
                                        " is not a multiple of the alignment " + std::to_string(out->alignment));
    }
    if (t.offset > data_bytes || t.n_bytes > data_bytes - t.offset) {
      return c.corrupt(info_offset, "tensor '" + t.name + "' data [" + std::to_string(t.offset) + ", +" +
                                        std::to_string(t.n_bytes) + ") is out of range: the data section at " +
                                        std::to_string(data_offset) + " holds " + std::to_string(data_bytes) +
                                        " bytes (truncated file?)");
    }
    t.file_offset = data_offset + t.offset;
    // An empty tensor may sit at the very end; keep its pointer inside (or one past) the image.
    t.data = data == nullptr ? nullptr : data + std::min(t.file_offset, size);
  }
  return Status::Ok();
}

}  // namespace

Result<GgufPart> parse_gguf_part(const uint8_t* data, size_t size, const std::string& name, int part) {
  GgufCursor c(data, size, name);
  GgufPart out;
  uint64_t n_tensors = 0, n_kv = 0;
  STRATA_RETURN_IF_ERROR(parse_header(c, &out.version, &n_tensors, &n_kv));
  STRATA_RETURN_IF_ERROR(parse_metadata(c, n_kv, &out));
  STRATA_RETURN_IF_ERROR(parse_tensor_infos(c, n_tensors, part, &out));
  STRATA_RETURN_IF_ERROR(bind_tensor_data(c, data, &out));
  return out;
}

}  // namespace strata
