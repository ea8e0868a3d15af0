#include "sampling/stop_matcher.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

TEST(StopMatcher, MatchesAcrossPieceBoundaries) {
  StopMatcher m({"o w"});
  std::string out;
  EXPECT_FALSE(m.feed("Hel", &out));
  EXPECT_EQ(out, "Hel");
  EXPECT_TRUE(m.feed("lo wor", &out));
  EXPECT_EQ(out, "Hell");
  EXPECT_TRUE(m.feed("ld", &out));  // stays stopped, emits nothing more
  EXPECT_EQ(out, "Hell");
  EXPECT_EQ(m.matched_stop(), 0);
}

TEST(StopMatcher, EarliestOfSeveralStopsWins) {
  StopMatcher m({"", "world", "lo"});
  std::string out;
  EXPECT_TRUE(m.feed("hello world", &out));
  EXPECT_EQ(out, "hel");
  EXPECT_EQ(m.matched_stop(), 2);  // index in the list as given, empty strings included
}

TEST(StopMatcher, StopAtTheVeryStartEmitsNothing) {
  StopMatcher m({"###"});
  std::string out;
  EXPECT_FALSE(m.feed("#", &out));
  EXPECT_FALSE(m.feed("#", &out));
  EXPECT_TRUE(m.feed("#tail", &out));
  EXPECT_EQ(out, "");
  EXPECT_TRUE(m.stopped());
}

TEST(StopMatcher, HoldsAPossiblePrefixThenReleasesIt) {
  StopMatcher m({"END"});
  std::string out;
  EXPECT_FALSE(m.feed("The E", &out));
  EXPECT_EQ(out, "The ");
  EXPECT_EQ(m.held_bytes(), 1u);
  EXPECT_FALSE(m.feed("N", &out));
  EXPECT_EQ(out, "The ");
  EXPECT_FALSE(m.feed("x", &out));
  EXPECT_EQ(out, "The ENx");
  EXPECT_EQ(m.held_bytes(), 0u);
}

TEST(StopMatcher, HoldsOnlyTheLongestPrefixSuffix) {
  StopMatcher m({"aab"});
  std::string out;
  for (char c : std::string("aaa")) EXPECT_FALSE(m.feed(std::string(1, c), &out));
  EXPECT_EQ(out, "a");
  EXPECT_TRUE(m.feed("b", &out));
  EXPECT_EQ(out, "a");
}

TEST(StopMatcher, FlushReleasesHeldTextWhenGenerationEnds) {
  StopMatcher m({"</s>"});
  std::string out;
  EXPECT_FALSE(m.feed("done </", &out));
  EXPECT_EQ(out, "done ");
  m.flush(&out);
  EXPECT_EQ(out, "done </");
  EXPECT_EQ(m.held_bytes(), 0u);
}

TEST(StopMatcher, WithoutStopsEverythingPassesThrough) {
  StopMatcher m({});
  std::string out;
  EXPECT_FALSE(m.feed("abc", &out));
  EXPECT_EQ(out, "abc");
  EXPECT_EQ(m.matched_stop(), -1);
}

}  // namespace
}  // namespace strata
