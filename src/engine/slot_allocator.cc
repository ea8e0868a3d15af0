#include "engine/slot_allocator.h"

#include <vector>

namespace strata {

namespace {

struct GroupLoad {
  int n_busy = 0;
  int n_free = 0;
  int highest_busy = -1;
};

GroupLoad load_of(std::span<const SlotCandidate> slots, int first, int n) {
  GroupLoad g;
  for (int s = first; s < first + n; ++s) {
    if (slots[s].busy) {
      ++g.n_busy;
      g.highest_busy = s;
    } else {
      ++g.n_free;
    }
  }
  return g;
}

// Rule 1.
int pick_group(std::span<const SlotCandidate> slots, int n_groups, int per_group, GroupLoad* load) {
  int best = -1;
  for (int g = 0; g < n_groups; ++g) {
    GroupLoad l = load_of(slots, g * per_group, per_group);
    if (l.n_free == 0) continue;
    if (best < 0 || l.n_busy < load->n_busy) {
      best = g;
      *load = l;
    }
  }
  return best;
}

}  // namespace

std::optional<SlotChoice> choose_slot(std::span<const SlotCandidate> slots, int n_groups) {
  if (n_groups < 1 || slots.empty() || slots.size() % n_groups != 0) return std::nullopt;
  const int per_group = static_cast<int>(slots.size()) / n_groups;
  GroupLoad load;
  int group = pick_group(slots, n_groups, per_group, &load);
  if (group < 0) return std::nullopt;
  const int first = group * per_group;
  // Rule 2: holes below the highest busy slot form the first class.
  bool holes = false;
  for (int s = first; s < load.highest_busy; ++s) holes = holes || !slots[s].busy;
  int best = -1;
  for (int s = first; s < first + per_group; ++s) {
    if (slots[s].busy) continue;
    if (holes && s > load.highest_busy) continue;
    // Rules 3 and 4: fewer retained blocks wins; scanning upward keeps the lowest on ties.
    if (best < 0 || slots[s].retained_blocks < slots[best].retained_blocks) best = s;
  }
  SlotChoice c;
  c.slot = best;
  c.group = group;
  c.filled_hole = holes;
  c.reason = "group " + std::to_string(group) + " has the fewest active slots (" + std::to_string(load.n_busy) +
             "); " + (holes ? "filling a hole below slot " + std::to_string(load.highest_busy) : "no holes") +
             "; slot " + std::to_string(best) + " keeps " + std::to_string(slots[best].retained_blocks) +
             " cached blocks of its previous conversation";
  return c;
}

}  // namespace strata
