// The hyper-parameters of the architectures whose layers norm only after their blocks (OLMo 2 /
// OLMo 3: ArchTraits::olmo2; EXAONE 4: ArchTraits::exaone4), read after the common ones. Private
// to src/model (hparams.cc calls them).
#pragma once

#include "base/status.h"
#include "gguf/gguf_file.h"
#include "model/hparams.h"

namespace strata {

// No pre-norms (Hparams::pre_norms false). When the file gives attention.sliding_window > 0
// (OLMo 3), the layers attention.sliding_window_pattern flags (a flag per layer, as llama.cpp's
// converter writes it; or a period: every layer but each period-th; 4 when absent) slide over that
// many keys and rotates with rope.freq_base_swa (the global base when
// absent) and no scaling: llama.cpp runs OLMo 3's sliding layers without the YaRN its full ones use.
Status read_olmo2(const GgufFile& gguf, Hparams* hp);

// No pre-norms. The 64-layer model (EXAONE 4.0 32B) slides as llama.cpp runs it: the layers
// attention.sliding_window_pattern flags (or every layer but each 4th, or the period's) over
// attention.sliding_window keys (4096 when absent), rotating as the file's rope says; the full
// layers have no rope. Other layer counts
// (EXAONE 4.0 1.2B) attend over all keys and rotate in every layer. A sliding base of its own
// (rope.freq_base_swa other than rope.freq_base) is refused: llama.cpp would keep the global
// scaling with it, which Strata's sliding rope does not.
Status read_exaone4(const GgufFile& gguf, Hparams* hp);

}  // namespace strata
