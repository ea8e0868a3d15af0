// For the modelgen tests: a tensor plan as a map from tensor name to its planned tensor (a
// name the plan lacks reads as an empty PlannedTensor through operator[]).
#pragma once

#include <map>
#include <string>

#include "modelgen/tensor_plan.h"

namespace strata {

inline std::map<std::string, PlannedTensor> planned_tensors_by_name(const TensorPlan& plan) {
  std::map<std::string, PlannedTensor> m;
  for (const auto& t : plan.tensors) m[t.name] = t;
  return m;
}

}  // namespace strata
