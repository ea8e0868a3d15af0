// Memory read bandwidth of this machine, for the roofline that `strata bench` reports.
// Stateless; allocates its buffer per call (not for the hot path).
#pragma once

#include <cstddef>

#include "base/thread_pool.h"

namespace strata::kernels {

// Streams a buffer of buffer_bytes (much larger than the caches) with every thread of
// pool reading its own contiguous share, and returns the best of a few passes in GB/s
// (1e9 bytes per second). Returns 0 if the buffer cannot be allocated.
double measure_read_bandwidth_gbs(ThreadPool& pool, size_t buffer_bytes = size_t{1} << 30);

}  // namespace strata::kernels
