// The attention variants' keys (Llama 4: ArchTraits::llama4; Ministral 3: ArchTraits::mistral3),
// read after the common ones. Private to src/model (hparams.cc calls them).
#pragma once

#include "base/status.h"
#include "gguf/gguf_file.h"
#include "model/hparams.h"

namespace strata {

// Llama 4's chunked attention and temperature: llama.cpp's constants unless the file has the keys.
Status read_llama4_attention(const GgufFile& gguf, Hparams* hp);

// Ministral 3's temperature over the original context, YaRN's ramp bounds and mscale ratio.
Status read_mistral3_attention(const GgufFile& gguf, Hparams* hp);

}  // namespace strata
