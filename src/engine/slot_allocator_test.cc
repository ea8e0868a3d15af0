#include "engine/slot_allocator.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace strata {
namespace {

// "B" = busy, "." = free, a digit = free with that many retained blocks.
std::vector<SlotCandidate> slots(const std::string& pattern) {
  std::vector<SlotCandidate> out;
  for (char c : pattern) {
    SlotCandidate s;
    s.busy = c == 'B';
    if (c >= '0' && c <= '9') s.retained_blocks = c - '0';
    out.push_back(s);
  }
  return out;
}

int pick(const std::string& pattern, int n_groups) {
  auto s = slots(pattern);
  auto c = choose_slot(s, n_groups);
  return c ? c->slot : -1;
}

TEST(SlotAllocator, EmptyEngineTakesSlotZero) { EXPECT_EQ(pick("........", 1), 0); }

TEST(SlotAllocator, AllBusyGivesNothing) { EXPECT_EQ(pick("BBBB", 2), -1); }

TEST(SlotAllocator, Rule1GroupWithFewestActiveSlots) {
  EXPECT_EQ(pick("BB..B...", 2), 5);   // group 1 has 1 active, group 0 has 2
  EXPECT_EQ(pick("B...BB..", 2), 1);   // group 0 has 1 active
}

TEST(SlotAllocator, Rule1TiesGoToTheLowestGroup) {
  EXPECT_EQ(pick("B...B...", 2), 1);
  EXPECT_EQ(pick("........", 4), 0);
}

TEST(SlotAllocator, Rule1SkipsFullGroupsEvenWithFewerActive) {
  // Group 0 (2 slots) is full; groups 1 and 2 compete.
  EXPECT_EQ(pick("BBB.B.", 3), 3);
}

TEST(SlotAllocator, NewRequestsSpreadRoundRobinOverGroups) {
  auto s = slots("........");
  std::vector<int> order;
  for (int i = 0; i < 8; ++i) {
    auto c = choose_slot(s, 4);
    ASSERT_TRUE(c.has_value());
    order.push_back(c->slot);
    s[c->slot].busy = true;
  }
  EXPECT_EQ(order, (std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7}));
}

TEST(SlotAllocator, Rule2FillsAHoleBelowTheHighestBusySlot) {
  EXPECT_EQ(pick("BB.B....", 1), 2);
}

TEST(SlotAllocator, Rule2FillsAHoleAtTheStartOfTheGroup) {
  EXPECT_EQ(pick(".BB.....", 1), 0);
  EXPECT_EQ(pick("BBB.B..B", 2), 5);  // group 1 = slots 4..7: 5 and 6 are holes below 7
}

TEST(SlotAllocator, Rule2WithoutHolesTakesTheLowestFreeSlot) { EXPECT_EQ(pick("BBB.....", 1), 3); }

TEST(SlotAllocator, Rule2ReportsWhetherItFilledAHole) {
  auto hole = slots("B.B.");
  auto no_hole = slots("BB..");
  EXPECT_TRUE(choose_slot(hole, 1)->filled_hole);
  EXPECT_FALSE(choose_slot(no_hole, 1)->filled_hole);
}

TEST(SlotAllocator, Rule3PrefersTheSlotWithLeastWorthKeeping) {
  EXPECT_EQ(pick("3012", 1), 1);   // slot 1 kept nothing
  EXPECT_EQ(pick("BB5023", 1), 3);  // slot 3 kept nothing
}

TEST(SlotAllocator, Rule3DoesNotOverrideRule2) {
  // Slot 1 is a hole (below busy slot 2) even though slot 3 kept nothing.
  EXPECT_EQ(pick("B9B0", 1), 1);
}

TEST(SlotAllocator, Rule3DoesNotOverrideRule1) {
  // Group 1 has fewer active slots even though group 0's free slot kept nothing.
  EXPECT_EQ(pick("B0..99..", 2), 6);
}

TEST(SlotAllocator, Rule3AppliesAmongHoles) { EXPECT_EQ(pick("52B.", 1), 1); }

TEST(SlotAllocator, Rule4LowestIndexBreaksRemainingTies) { EXPECT_EQ(pick("B.22.2", 1), 1); }

TEST(SlotAllocator, BadShapesGiveNothing) {
  auto s = slots("...");
  EXPECT_FALSE(choose_slot(s, 2).has_value());
  EXPECT_FALSE(choose_slot(s, 0).has_value());
}

TEST(SlotAllocator, ReasonNamesGroupAndSlot) {
  auto s = slots("B...");
  auto c = choose_slot(s, 1);
  ASSERT_TRUE(c.has_value());
  EXPECT_NE(c->reason.find("group 0"), std::string::npos);
  EXPECT_NE(c->reason.find("slot 1"), std::string::npos);
}

}  // namespace
}  // namespace strata
