// BitNet b1.58's hyper-parameters (ArchTraits::bitnet), read after the common keys. Private to
// src/model (hparams.cc calls it).
#pragma once

#include "base/status.h"
#include "gguf/gguf_file.h"
#include "model/hparams.h"

namespace strata {

// Sets Hparams::sub_norms and the feed-forward's gate: SiLU, or relu(.)^2 (Hparams::ffn_relu_sq_gated).
// <arch>.hidden_activation, when the file has it, names the gate ("silu", "swish", "swiglu";
// "relu2", "relu_squared"); without it relu_sq_default decides (llama.cpp's bitnet: SiLU; the
// bitnet-b1.58 / bitnet-25 files of Microsoft's converter: relu^2). Another name is refused.
Status read_bitnet(const GgufFile& gguf, bool relu_sq_default, Hparams* hp);

}  // namespace strata
