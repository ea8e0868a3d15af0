// Parsing one GGUF file image (one part of a possibly split model) into metadata and a
// tensor table whose data pointers point into the image. Used by GgufFile; stateless.
//
// Checks everything a hostile file can get wrong before trusting it: magic, version,
// counts against the bytes left, value and tensor type ids, duplicate keys and tensor names,
// n_dims <= 4, element-count overflow, whole blocks per row, alignment, and that each
// tensor's data lies inside the file.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "gguf/gguf_file.h"
#include "gguf/gguf_value.h"

namespace strata {

inline constexpr uint32_t kGgufMagic = 0x46554747;  // "GGUF" read as a little-endian u32
inline constexpr size_t kGgufDefaultAlignment = 32;
inline constexpr uint32_t kGgufMaxDims = 4;

struct GgufPart {
  uint32_t version = 0;
  size_t alignment = kGgufDefaultAlignment;
  size_t data_offset = 0;  // start of the data section in the image
  std::vector<std::pair<std::string, GgufValue>> metadata;
  std::vector<GgufTensor> tensors;
};

// name is used in error messages; part is stored in every GgufTensor::part.
Result<GgufPart> parse_gguf_part(const uint8_t* data, size_t size, const std::string& name, int part);

}  // namespace strata
