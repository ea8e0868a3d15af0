// For the modelgen tests: a tensor plan as a map from tensor name to its planned tensor (a
// name the plan lacks reads as an empty PlannedTensor through operator[]), and a generated
// file's integer array key.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "modelgen/tensor_plan.h"

namespace strata {

inline std::map<std::string, PlannedTensor> planned_tensors_by_name(const TensorPlan& plan) {
  std::map<std::string, PlannedTensor> m;
  for (const auto& t : plan.tensors) m[t.name] = t;
  return m;
}

// The values of the array key (empty when the file has none).
inline std::vector<int64_t> int_array(const GgufFile& f, const std::string& key) {
  std::vector<int64_t> out;
  const GgufValue* a = f.get_array(key);
  if (a == nullptr) return out;
  for (size_t k = 0; k < a->array_size(); ++k) out.push_back(static_cast<int64_t>(a->float_at(k).value_or(-1)));
  return out;
}

}  // namespace strata
