// Renders ServingMetrics' state and one engine snapshot as a Prometheus text exposition:
// the vllm: families (vLLM's names, labels and buckets), Strata's strata: families (named
// after their JSON keys), process_* and http_requests_total. docs/metrics.md lists them.
// Stateless; the caller holds the lock that makes `state` consistent.
#pragma once

#include <string>

#include "engine/engine_types.h"
#include "metrics/metrics_state.h"
#include "metrics/proc_stats.h"

namespace strata {

std::string render_prometheus(const MetricsState& state, const EngineSnapshot& snap,
                              const ProcessStats& process);

}  // namespace strata
