// Names of split GGUF files: PREFIX-00001-of-00003.gguf, as written by llama.cpp's
// gguf-split. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace strata {

struct GgufSplitName {
  std::string prefix;  // path up to "-NNNNN-of-MMMMM.gguf"
  int part_no = 1;     // 1-based
  int n_parts = 1;
};

// nullopt unless path ends in "-NNNNN-of-MMMMM.gguf" with 1 <= NNNNN <= MMMMM.
std::optional<GgufSplitName> parse_split_path(std::string_view path);
// part_no is 1-based.
std::string split_path(std::string_view prefix, int part_no, int n_parts);

}  // namespace strata
