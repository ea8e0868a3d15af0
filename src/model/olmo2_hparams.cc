#include "model/olmo2_hparams.h"

#include <string>

#include "model/metadata_readers.h"

namespace strata {

Status read_olmo2(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  hp->pre_norms = false;
  STRATA_RETURN_IF_ERROR(read_int(gguf, a, "attention.sliding_window", true, 0, &hp->sliding_window));
  if (hp->sliding_window == 0) return Status::Ok();
  hp->sliding_period = 4;
  STRATA_RETURN_IF_ERROR(read_count(gguf, a, "attention.sliding_window_pattern", true, &hp->sliding_period));
  if (hp->sliding_period < 2) {
    return Status::Corrupt(gguf.path() + ": " + a +
                           ".attention.sliding_window_pattern must be at least 2 (every layer sliding is 0 "
                           "sliding_window)");
  }
  hp->rope_freq_base_swa = hp->rope_freq_base;
  STRATA_RETURN_IF_ERROR(read_real(gguf, a + ".rope.freq_base_swa", &hp->rope_freq_base_swa));
  if (!(hp->rope_freq_base_swa > 0.0f)) {
    return Status::Corrupt(gguf.path() + ": " + a + ".rope.freq_base_swa must be > 0");
  }
  return Status::Ok();
}

}  // namespace strata
