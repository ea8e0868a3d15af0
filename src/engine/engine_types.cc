#include "engine/engine_types.h"

namespace strata {

const char* finish_reason_name(FinishReason r) {
  switch (r) {
    case FinishReason::kStop: return "stop";
    case FinishReason::kLength: return "length";
    case FinishReason::kAbort: return "abort";
    case FinishReason::kError: return "error";
    case FinishReason::kNone: break;
  }
  return "none";
}

const char* slot_state_name(SlotState s) {
  switch (s) {
    case SlotState::kReading: return "reading";
    case SlotState::kGenerating: return "generating";
    case SlotState::kIdle: break;
  }
  return "idle";
}

}  // namespace strata
