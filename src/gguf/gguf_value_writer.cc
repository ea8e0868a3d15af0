#include "gguf/gguf_value_writer.h"

#include <cstdint>

namespace strata {

void append_gguf_string(std::string* out, std::string_view s) {
  append_pod<uint64_t>(out, s.size());
  out->append(s);
}

Status append_gguf_value(std::string* out, const GgufValue& v, std::string_view key) {
  switch (v.type) {
    case GgufType::kU8: append_pod(out, static_cast<uint8_t>(v.u)); break;
    case GgufType::kU16: append_pod(out, static_cast<uint16_t>(v.u)); break;
    case GgufType::kU32: append_pod(out, static_cast<uint32_t>(v.u)); break;
    case GgufType::kU64: append_pod(out, static_cast<uint64_t>(v.u)); break;
    case GgufType::kI8: append_pod(out, static_cast<int8_t>(v.i)); break;
    case GgufType::kI16: append_pod(out, static_cast<int16_t>(v.i)); break;
    case GgufType::kI32: append_pod(out, static_cast<int32_t>(v.i)); break;
    case GgufType::kI64: append_pod(out, static_cast<int64_t>(v.i)); break;
    case GgufType::kF32: append_pod(out, static_cast<float>(v.f)); break;
    case GgufType::kF64: append_pod(out, v.f); break;
    case GgufType::kBool: append_pod(out, static_cast<uint8_t>(v.u != 0 ? 1 : 0)); break;
    case GgufType::kString: append_gguf_string(out, v.str); break;
    case GgufType::kArray: {
      append_pod(out, static_cast<uint32_t>(v.elem_type));
      append_pod<uint64_t>(out, v.array_size());
      for (const auto& item : v.array) {
        if (item.type != v.elem_type) {
          return Status::InvalidArgument("metadata '" + std::string(key) + "': array of " +
                                         gguf_type_name(v.elem_type) + " holds a " + gguf_type_name(item.type));
        }
        STRATA_RETURN_IF_ERROR(append_gguf_value(out, item, key));
      }
      if (!v.array.empty()) break;
      // Items kept by kind: each written as a value of elem_type.
      for (size_t k = 0; k < v.array_size(); ++k) STRATA_RETURN_IF_ERROR(append_gguf_value(out, v.item(k), key));
      break;
    }
    default:
      return Status::InvalidArgument("metadata '" + std::string(key) + "': unknown value type");
  }
  return Status::Ok();
}

}  // namespace strata
