// model_fingerprint: a 64-bit identity of a model's weights, so K/V parked by one model is
// never served to another (see kvcache/park_store.h).
//
// Hashes every tensor's name, type, shape and size, and the first and last 4 KiB of its
// data: cheap on a memory-mapped file (two pages per tensor), and any re-quantisation,
// fine-tune or different checkpoint changes it. Pure.
#pragma once

#include <cstdint>

#include "gguf/gguf_file.h"

namespace strata {

uint64_t model_fingerprint(const GgufFile& gguf);

}  // namespace strata
