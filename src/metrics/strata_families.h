// Writes Strata's own strata: families, each named after its key in the JSON view (path
// joined with "_", "_s" spelled "_seconds", counters ending in "_total"), so a panel and
// the Monitor page show the same figure. Stateless; the caller holds ServingMetrics' lock.
#pragma once

#include <span>

#include "engine/engine_types.h"
#include "metrics/metrics_state.h"
#include "metrics/prom_writer.h"

namespace strata {

void render_strata_families(PromWriter& w, std::span<const PromLabel> common,
                            const MetricsState& st, const EngineSnapshot& snap);

}  // namespace strata
