// check_spec(): whether a ModelSpec describes a model mkmodel can write (sizes positive, heads that
// divide, each architecture's parts only with that architecture). Private to src/modelgen
// (plan_tensors() calls it); a pure function.
#pragma once

#include "base/status.h"
#include "modelgen/model_spec.h"

namespace strata {

// Ok, or InvalidArgument naming what does not fit.
Status check_spec(const ModelSpec& s);

}  // namespace strata
