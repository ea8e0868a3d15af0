// For the modelgen tests: a tensor plan as a map from tensor name to its planned tensor (a
// name the plan lacks reads as an empty PlannedTensor through operator[]), what mkmodel would
// write for a preset, and a generated file's integer array key.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "modelgen/model_generator.h"
#include "modelgen/tensor_plan.h"

namespace strata {

inline std::map<std::string, PlannedTensor> planned_tensors_by_name(const TensorPlan& plan) {
  std::map<std::string, PlannedTensor> m;
  for (const auto& t : plan.tensors) m[t.name] = t;
  return m;
}

// What mkmodel --arch arch --preset preset --type type [--layers n_layers] would write (its plan).
inline Result<GenerateReport> planned_model(const std::string& arch, const std::string& preset, DType type,
                                            int n_layers = 0) {
  GenerateOptions o;
  o.arch = arch;
  o.preset = preset;
  o.type = type;
  o.n_layers = n_layers;
  return plan_model(o);
}

// That plan's tensors by name (none, the failure recorded, when there is no plan).
inline std::map<std::string, PlannedTensor> planned_tensors_of(const std::string& arch, const std::string& preset,
                                                               DType type, int n_layers = 0) {
  auto r = planned_model(arch, preset, type, n_layers);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? planned_tensors_by_name(r->plan) : std::map<std::string, PlannedTensor>{};
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
