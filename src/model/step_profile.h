// StepProfile: where the forward passes' time goes, by part (matmul per weight type,
// attention, norms, ...), for `strata bench --profile`.
//
// Off by default and free when off: the forward pass times a region only when its
// ForwardScratch has a profile set (ForwardScratch::set_profile), so an unprofiled pass pays
// one predictable branch per region and allocates nothing either way.
//
// Not thread-safe: written only by the thread that calls the forward pass (the timed regions
// enclose whole parallel_for calls, never code inside a pool task). The timed regions never
// nest, so the parts add up to at most the wall time of the passes.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>

#include "tensor/dtype.h"

namespace strata {

enum class StepPart : int {
  kEmbed,          // token embedding lookup
  kNorm,           // RMS norms (with the residual add before the feed-forward norm)
  kQkvFinish,      // q/k bias, QK-norm, RoPE, K/V store
  kAttention,
  kFfnActivation,  // SiLU gate
  kMoe,            // mixture-of-experts routing and expert matmuls
  kDeltaNet,       // recurrent layers' convolution and recurrence (hybrid models: delta-net, Mamba-2)
  kAltup,          // Gemma 3n's AltUp streams and laurel branch, but for their matmuls
  kResidual,       // residual add after the feed-forward block
  kSampling,       // choosing the next token from the logits
  kCount,
};
const char* step_part_name(StepPart part);

struct StepProfile {
  static constexpr int kMaxTypeId = 40;  // GGUF type ids are below this
  std::array<uint64_t, static_cast<size_t>(StepPart::kCount)> part_ns{};
  std::array<uint64_t, kMaxTypeId> matmul_ns{};     // by DType id
  std::array<uint64_t, kMaxTypeId> matmul_calls{};
  // Nanoseconds the calling thread waited for the pool's workers to finish their tasks
  // (ThreadPool::set_wait_counter). Inside the parts above, not beside them.
  uint64_t pool_wait_ns = 0;

  uint64_t parts_ns() const;  // every part and every matmul type
};

inline uint64_t profile_now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// Adds the time from construction to destruction to one counter of a profile; does nothing
// (reads no clock) when the profile is null.
class ProfileTimer {
 public:
  ProfileTimer(StepProfile* p, StepPart part)
      : slot_(p ? &p->part_ns[static_cast<size_t>(part)] : nullptr), start_ns_(slot_ ? profile_now_ns() : 0) {}
  ProfileTimer(StepProfile* p, DType matmul_type) : slot_(matmul_slot(p, matmul_type)) {
    if (slot_) {
      ++p->matmul_calls[static_cast<size_t>(matmul_type)];
      start_ns_ = profile_now_ns();
    }
  }
  ~ProfileTimer() {
    if (slot_) *slot_ += profile_now_ns() - start_ns_;
  }
  ProfileTimer(const ProfileTimer&) = delete;
  ProfileTimer& operator=(const ProfileTimer&) = delete;

 private:
  static uint64_t* matmul_slot(StepProfile* p, DType type) {
    const auto id = static_cast<size_t>(type);
    return p && id < p->matmul_ns.size() ? &p->matmul_ns[id] : nullptr;
  }
  uint64_t* slot_;
  uint64_t start_ns_ = 0;
};

// A profile of one phase of a benchmark (e.g. "decode"): n_steps forward passes (plus their
// sampling) that took total_s of wall time.
struct PhaseProfile {
  std::string name;
  int n_steps = 0;
  double total_s = 0.0;
  StepProfile parts;
};

// The table `strata bench --profile` prints: milliseconds per step and share of the step,
// per part, the untimed rest, and the pool waits inside the parts.
std::string format_phase_profile(const PhaseProfile& phase);

}  // namespace strata
