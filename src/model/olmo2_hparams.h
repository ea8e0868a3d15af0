// OLMo 2 / OLMo 3's hyper-parameters (ArchTraits::olmo2), read after the common ones. Private to
// src/model (hparams.cc calls it).
#pragma once

#include "base/status.h"
#include "gguf/gguf_file.h"
#include "model/hparams.h"

namespace strata {

// No pre-norms (Hparams::pre_norms false). When the file gives attention.sliding_window > 0
// (OLMo 3), every layer but each attention.sliding_window_pattern-th (4 when absent, as llama.cpp
// reads it) slides over that many keys and rotates with rope.freq_base_swa (the global base when
// absent) and no scaling: llama.cpp runs OLMo 3's sliding layers without the YaRN its full ones use.
Status read_olmo2(const GgufFile& gguf, Hparams* hp);

}  // namespace strata
