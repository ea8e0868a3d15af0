#include "gguf/quant_mix.h"

#include <algorithm>
#include <cctype>

#include "gguf/file_type.h"

namespace strata {

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

QuantMix quant_mix(const GgufFile& file) {
  QuantMix mix;
  for (const GgufTensor& t : file.tensors()) {
    if (t.dims.size() < 2) {
      ++mix.n_vectors;
      continue;
    }
    auto it = std::find_if(mix.matrices.begin(), mix.matrices.end(), [&](const auto& p) { return p.first == t.type; });
    if (it == mix.matrices.end()) {
      mix.matrices.emplace_back(t.type, 1);
    } else {
      ++it->second;
    }
  }
  std::sort(mix.matrices.begin(), mix.matrices.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : static_cast<uint32_t>(a.first) < static_cast<uint32_t>(b.first);
  });
  if (auto ft = file.get_uint("general.file_type"); ft && file_type_name(static_cast<uint32_t>(*ft)) != "unknown") {
    mix.label = std::string(file_type_name(static_cast<uint32_t>(*ft)));
  } else if (!mix.matrices.empty()) {
    mix.label = upper(dtype_name(mix.matrices.front().first)) + "-like";
  } else {
    mix.label = "no matrices";
  }
  return mix;
}

std::string format_quant_mix(const QuantMix& mix) {
  std::string out = mix.label + ":";
  for (size_t i = 0; i < mix.matrices.size(); ++i) {
    out += (i == 0 ? " " : ", ") + std::to_string(mix.matrices[i].second) + " x " +
           std::string(dtype_name(mix.matrices[i].first));
  }
  if (mix.n_vectors > 0) out += " (+ " + std::to_string(mix.n_vectors) + " vectors)";
  return out;
}

}  // namespace strata
