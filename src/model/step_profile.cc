#include "model/step_profile.h"

#include <cstdio>

namespace strata {

const char* step_part_name(StepPart part) {
  switch (part) {
    case StepPart::kEmbed: return "embedding";
    case StepPart::kNorm: return "norms";
    case StepPart::kQkvFinish: return "rope + k/v store";
    case StepPart::kAttention: return "attention";
    case StepPart::kFfnActivation: return "ffn activation";
    case StepPart::kMoe: return "moe experts";
    case StepPart::kDeltaNet: return "recurrent layers (delta-net, Mamba-2)";
    case StepPart::kAltup: return "altup streams (Gemma 3n)";
    case StepPart::kResidual: return "residual adds";
    case StepPart::kSampling: return "sampling";
    case StepPart::kCount: break;
  }
  return "?";
}

uint64_t StepProfile::parts_ns() const {
  uint64_t sum = 0;
  for (uint64_t ns : part_ns) sum += ns;
  for (uint64_t ns : matmul_ns) sum += ns;
  return sum;
}

namespace {

void add_row(std::string* out, const std::string& name, double ms_per_step, double share) {
  char line[160];
  std::snprintf(line, sizeof line, "  %-26s %10.3f %7.1f%%\n", name.c_str(), ms_per_step, 100.0 * share);
  *out += line;
}

}  // namespace

std::string format_phase_profile(const PhaseProfile& ph) {
  std::string out;
  char line[200];
  const double steps = ph.n_steps > 0 ? ph.n_steps : 1;
  const double step_ms = ph.total_s * 1e3 / steps;
  std::snprintf(line, sizeof line, "profile    %s: %d steps, %.3f ms per step\n", ph.name.c_str(), ph.n_steps, step_ms);
  out += line;
  out += "  part                          ms/step   share\n";
  const double total_ns = ph.total_s * 1e9;
  const auto row = [&](const std::string& name, uint64_t ns) {
    add_row(&out, name, static_cast<double>(ns) / 1e6 / steps, total_ns > 0 ? static_cast<double>(ns) / total_ns : 0.0);
  };
  for (size_t t = 0; t < ph.parts.matmul_ns.size(); ++t) {
    if (ph.parts.matmul_calls[t] == 0) continue;
    row("matmul " + std::string(dtype_name(static_cast<DType>(t))), ph.parts.matmul_ns[t]);
  }
  for (size_t p = 0; p < ph.parts.part_ns.size(); ++p) {
    if (ph.parts.part_ns[p] == 0) continue;
    row(step_part_name(static_cast<StepPart>(p)), ph.parts.part_ns[p]);
  }
  const uint64_t timed = ph.parts.parts_ns();
  row("other (untimed)", total_ns > static_cast<double>(timed) ? static_cast<uint64_t>(total_ns) - timed : 0);
  row("thread-pool waits (within)", ph.parts.pool_wait_ns);
  return out;
}

}  // namespace strata
