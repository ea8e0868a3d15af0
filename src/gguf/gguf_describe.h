// A human-readable report of a GGUF file for `strata gguf-info`: version, file type and
// quantisation mix (quant_mix.h), metadata (long arrays and strings abbreviated), the tensor
// table, per-type totals, and which matrices fell back from the file's main type because
// their width is not whole blocks of it.
// Pure functions.
#pragma once

#include <cstddef>
#include <string>

#include "gguf/gguf_file.h"

namespace strata {

struct DescribeOptions {
  size_t max_array_items = 5;   // items shown before "... (N items)"
  size_t max_string_bytes = 64;  // longer strings are cut with "..."
  bool show_tensors = true;
};

// One value as text: strings quoted and escaped, arrays as [a, b, ... (N items)].
std::string format_gguf_value(const GgufValue& value, const DescribeOptions& options);

std::string describe_gguf(const GgufFile& file, const DescribeOptions& options);

}  // namespace strata
