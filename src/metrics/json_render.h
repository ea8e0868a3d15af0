// Renders ServingMetrics' state and one engine snapshot as the JSON the Monitor page polls
// (GET /metrics without a Prometheus Accept). docs/metrics.md describes every key. A figure
// the server does not have is left out, never written as 0.
// Stateless; the caller holds the lock that makes `state` consistent.
#pragma once

#include <string>

#include "engine/engine_types.h"
#include "metrics/metrics_state.h"

namespace strata {

// all_requests: list every kept finished request instead of the newest few.
std::string render_json(const MetricsState& state, const EngineSnapshot& snap, double now_mono_s,
                        bool all_requests);

}  // namespace strata
