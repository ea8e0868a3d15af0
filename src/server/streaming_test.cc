// Streams watched byte by byte over a raw socket: keep-alives while the engine is silent, and
// cancellation of the engine request when the client goes away.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server/testing/test_server.h"

namespace strata::server {
namespace {

using nlohmann::json;
using testing::FakeEngine;
using testing::RawConnection;
using testing::TestServer;
using testing::post_request;
using testing::test_config;

constexpr double kEventWaitS = 10.0;  // upper bound for events that should come at once

std::string chat_request(bool stream) {
  json body = {{"messages", {{{"role", "user"}, {"content", "hi"}}}}, {"stream", stream}, {"max_tokens", 20}};
  return post_request("/v1/chat/completions", body.dump(), "test-key");
}

FakeEngine::Options manual_engine() {
  FakeEngine::Options engine;
  engine.manual = true;
  return engine;
}

TEST(ServerStreaming, KeepAliveCommentsWhileThePromptIsRead) {
  ServerConfig config = test_config();
  config.keep_alive_s = 0.02;
  TestServer server(config, manual_engine());
  RawConnection conn(server.port());
  ASSERT_TRUE(conn.send_all(chat_request(true)));
  // The engine produces nothing (no step), as during a long prompt read.
  EXPECT_TRUE(conn.read_until(": keep-alive\n\n", kEventWaitS)) << conn.received();
  EXPECT_EQ(server.engine().n_active(), 1u);
}

TEST(ServerStreaming, ClientDisconnectCancelsTheEngineRequest) {
  TestServer server(test_config(), manual_engine());
  RawConnection conn(server.port());
  ASSERT_TRUE(conn.send_all(chat_request(true)));
  ASSERT_TRUE(server.engine().wait_for_active(1, kEventWaitS));
  server.engine().step();
  ASSERT_TRUE(conn.read_until("\"content\":\"H\"", kEventWaitS)) << conn.received();
  conn.close();
  // No engine step is needed for the server to notice: it watches the connection while waiting.
  EXPECT_TRUE(server.engine().wait_for_cancel(kEventWaitS));
  // The engine's next step ends the request, so its slot is free again.
  server.engine().step();
  EXPECT_EQ(server.engine().n_active(), 0u);
}

TEST(ServerStreaming, NonStreamingClientDisconnectAlsoCancels) {
  TestServer server(test_config(), manual_engine());
  RawConnection conn(server.port());
  ASSERT_TRUE(conn.send_all(chat_request(false)));
  ASSERT_TRUE(server.engine().wait_for_active(1, kEventWaitS));
  conn.close();
  EXPECT_TRUE(server.engine().wait_for_cancel(kEventWaitS));
}

TEST(ServerStreaming, ServerShutdownAbortEndsTheStreamWithAnError) {
  TestServer server(test_config(), manual_engine());
  RawConnection conn(server.port());
  ASSERT_TRUE(conn.send_all(chat_request(true)));
  ASSERT_TRUE(server.engine().wait_for_active(1, kEventWaitS));
  server.engine().shutdown(0);  // aborts the running request, as a drain timeout would
  ASSERT_TRUE(conn.read_until("\r\n0\r\n\r\n", kEventWaitS)) << conn.received();
  EXPECT_NE(conn.received().find("\"code\":\"aborted\""), std::string::npos);
  EXPECT_EQ(conn.received().find("[DONE]"), std::string::npos);
}

}  // namespace
}  // namespace strata::server
