#include "server/sse.h"

#include <gtest/gtest.h>

namespace strata::server {
namespace {

TEST(SseFrames, ExactBytes) {
  EXPECT_EQ(sse_data_frame("{\"a\":1}"), "data: {\"a\":1}\n\n");
  EXPECT_EQ(sse_event_frame("ping", "{}"), "event: ping\ndata: {}\n\n");
  EXPECT_EQ(sse_comment_frame("keep-alive"), ": keep-alive\n\n");
}

TEST(SseWriter, WritesFramesAndDone) {
  std::string out;
  SseWriter writer([&](std::string_view b) {
    out.append(b);
    return true;
  });
  EXPECT_TRUE(writer.data(nlohmann::json{{"text", "line\nbreak"}}));
  EXPECT_TRUE(writer.keep_alive());
  EXPECT_TRUE(writer.event("message_stop", nlohmann::json{{"type", "message_stop"}}));
  EXPECT_TRUE(writer.done());
  EXPECT_EQ(out,
            "data: {\"text\":\"line\\nbreak\"}\n\n"
            ": keep-alive\n\n"
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
            "data: [DONE]\n\n");
}

TEST(SseWriter, StopsWritingAfterAFailure) {
  int calls = 0;
  SseWriter writer([&](std::string_view) {
    ++calls;
    return false;
  });
  EXPECT_FALSE(writer.keep_alive());
  EXPECT_FALSE(writer.done());
  EXPECT_FALSE(writer.ok());
  EXPECT_EQ(calls, 1);
}

TEST(DumpJson, ReplacesInvalidUtf8) {
  EXPECT_EQ(dump_json(nlohmann::json(std::string("a\xff"))), "\"a\xEF\xBF\xBD\"");
}

}  // namespace
}  // namespace strata::server
