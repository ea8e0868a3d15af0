// The slot allocator: which free slot a newly admitted request gets. Pure and deterministic.
//
// Slots 0..N-1 form G groups of N/G consecutive slots (group = slot / (N/G)). The rules, in
// order:
//   1. Group: the group with the fewest active slots among groups that have a free slot;
//      ties go to the lowest group. This keeps the groups' windows the same size, so the
//      pipeline stages get equal work.
//   2. Class: inside that group, the free slots below the group's highest busy slot (holes,
//      including a hole at the start of the group) are taken before the free slots above
//      it, so a group's active slots stay packed at its start.
//   3. Keep warm: inside the chosen class, the slot whose previous conversation has the
//      fewest blocks still in the prefix cache (0 = nothing worth keeping); recently used
//      conversations thus stay cached for their follow-up turns.
//   4. The lowest slot index.
// With no cached conversations, rules 2-4 read simply: the lowest hole, else the lowest
// free slot.
#pragma once

#include <optional>
#include <span>
#include <string>

namespace strata {

struct SlotCandidate {
  bool busy = false;
  int retained_blocks = 0;  // blocks of the slot's previous conversation still cached
};

struct SlotChoice {
  int slot = -1;
  int group = -1;
  bool filled_hole = false;  // rule 2 chose a slot below the group's highest busy slot
  std::string reason;        // for the debug log
};

// slots.size() must be a multiple of n_groups. nullopt when every slot is busy.
std::optional<SlotChoice> choose_slot(std::span<const SlotCandidate> slots, int n_groups);

}  // namespace strata
