// Nemotron's hyper-parameters (ArchTraits::deci: Llama-3.1-Nemotron-51B, Llama-3.3-Nemotron-Super-49B,
// Llama-3.1-Nemotron-Ultra-253B, as llama.cpp's converter writes DeciLM's layers), read after the
// common ones. Private to src/model (hparams.cc calls it).
#pragma once

#include "base/status.h"
#include "gguf/gguf_file.h"
#include "model/hparams.h"

namespace strata {

// The first non-zero entry of <arch>.attention.head_count (an array, or one count for every
// layer): the query heads of every attending layer, which the common keys' head size follows.
Result<int> deci_query_heads(const GgufFile& gguf, const std::string& arch);

// Per layer, from attention.head_count, attention.head_count_kv and feed_forward_length (each an
// array over the layers, or one value for all): no heads, no attention (AttnKind::kNone); heads
// without K/V heads, attn_output alone (kLinear); else attention, every such layer with the same
// query and K/V heads (another count is refused, naming the layer). A feed-forward width of 0 is
// a layer without one. At least one layer must attend.
Status read_deci(const GgufFile& gguf, Hparams* hp);

}  // namespace strata
