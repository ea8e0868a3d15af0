// ResponseStore: conversations kept by response id within a byte budget, least recently used out.
#include "server/response_store.h"

#include <gtest/gtest.h>

#include <string>

namespace strata::server {
namespace {

RequestJson turns_of(const std::string& text) {
  return RequestJson::array({{{"role", "user"}, {"content", text}}});
}

const nlohmann::json kAnswer = {{"object", "response"}, {"status", "completed"}};

TEST(ResponseStore, KeepsAConversationUnderItsId) {
  ResponseStore store(1 << 20);
  store.put("resp_a", turns_of("hello"), kAnswer);
  ASSERT_TRUE(store.get("resp_a").has_value());
  EXPECT_EQ(*store.get("resp_a"), turns_of("hello"));
  EXPECT_FALSE(store.get("resp_b").has_value());
  store.put("resp_a", turns_of("again"), kAnswer);  // the same id again replaces it
  EXPECT_EQ(*store.get("resp_a"), turns_of("again"));
  EXPECT_EQ(store.entries(), 1u);
}

TEST(ResponseStore, TheLeastRecentlyUsedGoFirstWhenTheBudgetIsFull) {
  // Its conversation, answer and (here no) input items, as JSON text, and its id.
  const size_t one = turns_of(std::string(100, 'x')).dump().size() + kAnswer.dump().size() +
                     nlohmann::json::array().dump().size() + std::string("resp_0").size();
  ResponseStore store(3 * one);
  for (int i = 0; i < 3; ++i) store.put("resp_" + std::to_string(i), turns_of(std::string(100, 'x')), kAnswer);
  EXPECT_EQ(store.size_bytes(), 3 * one);
  ASSERT_TRUE(store.get("resp_0").has_value());  // now the most recently used
  store.put("resp_3", turns_of(std::string(100, 'x')), kAnswer);
  EXPECT_TRUE(store.get("resp_0").has_value());
  EXPECT_FALSE(store.get("resp_1").has_value());
  EXPECT_TRUE(store.get("resp_2").has_value());
  EXPECT_TRUE(store.get("resp_3").has_value());
  EXPECT_LE(store.size_bytes(), 3 * one);
}

TEST(ResponseStore, AConversationOverTheWholeBudgetOrAZeroBudgetKeepsNothing) {
  ResponseStore small(64);
  small.put("resp_big", turns_of(std::string(1000, 'x')), kAnswer);
  EXPECT_FALSE(small.get("resp_big").has_value());
  EXPECT_EQ(small.size_bytes(), 0u);
  ResponseStore none(0);
  none.put("resp_a", turns_of("x"), kAnswer);
  EXPECT_EQ(none.entries(), 0u);
}

TEST(ResponseStore, KeepsTheResponseObjectBesideItsConversationUntilDeleted) {
  ResponseStore store(1 << 20);
  store.put("resp_a", turns_of("hello"), kAnswer);
  ASSERT_TRUE(store.answer("resp_a").has_value());
  EXPECT_EQ(*store.answer("resp_a"), kAnswer);
  EXPECT_FALSE(store.answer("resp_b").has_value());
  EXPECT_TRUE(store.erase("resp_a"));
  EXPECT_FALSE(store.get("resp_a").has_value());
  EXPECT_FALSE(store.answer("resp_a").has_value());
  EXPECT_FALSE(store.erase("resp_a"));
  EXPECT_EQ(store.size_bytes(), 0u);
  EXPECT_EQ(store.entries(), 0u);
}

TEST(ResponseStore, KeepsTheRequestsInputItemsAndCountsThem) {
  const nlohmann::json items = nlohmann::json::array({{{"type", "message"}, {"id", "msg_0_resp_a"}}});
  ResponseStore store(1 << 20);
  store.put("resp_a", turns_of("hello"), kAnswer, items);
  ASSERT_TRUE(store.input_items("resp_a").has_value());
  EXPECT_EQ(*store.input_items("resp_a"), items);
  EXPECT_EQ(store.size_bytes(),
            turns_of("hello").dump().size() + kAnswer.dump().size() + items.dump().size() + std::string("resp_a").size());
  EXPECT_FALSE(store.input_items("resp_b").has_value());
  ASSERT_TRUE(store.erase("resp_a"));
  EXPECT_FALSE(store.input_items("resp_a").has_value());
}

}  // namespace
}  // namespace strata::server
