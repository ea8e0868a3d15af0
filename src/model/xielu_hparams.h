// Apertus's feed-forward activation values (ArchTraits::apertus, Hparams::ffn_xielu), read after
// the common keys. Private to src/model (hparams.cc calls it).
#pragma once

#include "base/status.h"
#include "gguf/gguf_file.h"
#include "model/hparams.h"

namespace strata {

// xielu.alpha_n, xielu.alpha_p, xielu.beta and xielu.eps (global keys, as llama.cpp names them):
// each a value per layer or one for all, every one required and finite; alpha_p and alpha_n
// constrained as llama.cpp's ggml_xielu constrains them (Hparams::ffn_xielu).
Status read_xielu(const GgufFile& gguf, Hparams* hp);

}  // namespace strata
