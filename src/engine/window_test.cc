#include "engine/window.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace strata {
namespace {

struct Fixture {
  std::vector<std::vector<int32_t>> tokens;
  std::vector<SlotWork> slots;

  void add(SlotState state, int n_prompt, int n_past, uint64_t admission, int n_generated = 0) {
    std::vector<int32_t> t(n_prompt + n_generated);
    std::iota(t.begin(), t.end(), 1000 * static_cast<int>(tokens.size() + 1));
    tokens.push_back(t);
    SlotWork s;
    s.state = state;
    s.n_prompt = n_prompt;
    s.n_past = n_past;
    s.admission = admission;
    slots.push_back(s);
  }
  Window build(int first_slot, int chunk) {
    for (size_t i = 0; i < slots.size(); ++i) slots[i].tokens = tokens[i];
    Window w(0, first_slot, static_cast<int>(slots.size()), 1, 64, 4, 8);
    build_window(slots, chunk, &w);
    return w;
  }
};

TEST(BuildWindow, IdleSlotsAddNoRows) {
  Fixture f;
  for (int i = 0; i < 4; ++i) f.add(SlotState::kIdle, 0, 0, i);
  Window w = f.build(0, 16);
  EXPECT_TRUE(w.rows.empty());
  EXPECT_TRUE(w.logit_slots.empty());
}

TEST(BuildWindow, OneRowPerGeneratingSlotWithItsLastToken) {
  Fixture f;
  f.add(SlotState::kGenerating, 5, 6, 0, 2);  // 5 prompt + 2 generated; K/V for 6 positions
  f.add(SlotState::kIdle, 0, 0, 1);
  f.add(SlotState::kGenerating, 3, 3, 2, 1);
  Window w = f.build(4, 16);
  ASSERT_EQ(w.rows.size(), 2u);
  EXPECT_EQ(w.rows[0].seq, 4);
  EXPECT_EQ(w.rows[0].pos, 6);
  EXPECT_EQ(w.rows[0].token, f.tokens[0][6]);
  EXPECT_TRUE(w.rows[0].want_logits);
  EXPECT_EQ(w.rows[1].seq, 6);
  EXPECT_EQ(w.rows[1].pos, 3);
  EXPECT_EQ(w.logit_slots, (std::vector<int>{4, 6}));
  EXPECT_EQ(w.n_decode_rows, 2);
  EXPECT_EQ(w.slot_rows, (std::vector<int>{1, 0, 1}));
}

// A hybrid model's slot after a rejected draft: the positions from n_past up to its last token
// are computed again in order, only the last row asking for logits.
TEST(BuildWindow, AGeneratingSlotBehindItsTokensRecomputesThemFirst) {
  Fixture f;
  f.add(SlotState::kGenerating, 5, 4, 0, 3);  // 8 tokens; K/V (and state) for 4 positions
  f.add(SlotState::kGenerating, 3, 3, 1, 1);
  Window w = f.build(0, 16);
  ASSERT_EQ(w.rows.size(), 5u);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(w.rows[k].seq, 0);
    EXPECT_EQ(w.rows[k].pos, 4 + k);
    EXPECT_EQ(w.rows[k].token, f.tokens[0][4 + k]);
    EXPECT_EQ(w.rows[k].want_logits, k == 3) << k;
  }
  EXPECT_EQ(w.rows[4].pos, 3);
  EXPECT_EQ(w.logit_slots, (std::vector<int>{0, 1}));
  EXPECT_EQ(w.slot_rows, (std::vector<int>{4, 1}));
  EXPECT_EQ(w.n_decode_rows, 5);
}

TEST(BuildWindow, PromptIsReadInChunksBesideDecodingSlots) {
  Fixture f;
  f.add(SlotState::kGenerating, 2, 2, 0, 1);
  f.add(SlotState::kReading, 40, 16, 1);
  Window w = f.build(0, 16);
  ASSERT_EQ(w.rows.size(), 17u);
  EXPECT_EQ(w.n_decode_rows, 1);
  EXPECT_EQ(w.n_prefill_rows, 16);
  for (int k = 0; k < 16; ++k) {
    EXPECT_EQ(w.rows[1 + k].pos, 16 + k);
    EXPECT_FALSE(w.rows[1 + k].want_logits);
  }
  EXPECT_EQ(w.logit_slots, (std::vector<int>{0}));
}

TEST(BuildWindow, LastPromptRowAsksForLogits) {
  Fixture f;
  f.add(SlotState::kReading, 10, 4, 0);
  Window w = f.build(0, 16);
  ASSERT_EQ(w.rows.size(), 6u);
  EXPECT_TRUE(w.rows.back().want_logits);
  EXPECT_EQ(w.rows.back().pos, 9);
  EXPECT_EQ(w.logit_slots, (std::vector<int>{0}));
}

TEST(BuildWindow, OlderAdmissionReadsFirstAndChunkIsShared) {
  Fixture f;
  f.add(SlotState::kReading, 10, 0, 7);  // admitted later
  f.add(SlotState::kReading, 6, 0, 3);   // admitted first
  Window w = f.build(0, 8);
  ASSERT_EQ(w.rows.size(), 8u);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(w.rows[k].seq, 1);
  EXPECT_TRUE(w.rows[5].want_logits);
  EXPECT_EQ(w.rows[6].seq, 0);
  EXPECT_EQ(w.rows[7].pos, 1);
  EXPECT_EQ(w.slot_rows, (std::vector<int>{2, 6}));
  EXPECT_EQ(w.logit_slots, (std::vector<int>{1}));
}

}  // namespace
}  // namespace strata
