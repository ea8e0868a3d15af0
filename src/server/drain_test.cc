// run_server's life cycle: background load behind an open port, then a drain that lets running
// requests finish (or aborts them at the drain timeout) and closes the port.
#include "server/server_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <future>

#include "server/testing/test_server.h"

namespace strata::server {
namespace {

using nlohmann::json;
using testing::FakeEngine;
using testing::FakeModelText;
using testing::RawConnection;
using testing::post_request;
using testing::test_config;

constexpr double kDrainWaitS = 10.0;

// Runs run_server on a thread with a manual FakeEngine and a stop switch the test flips.
class RunningServer {
 public:
  explicit RunningServer(ServerConfig config, FakeEngine::Options options = {}) {
    options.manual = true;
    auto engine = std::make_unique<FakeEngine>(options);
    engine_ = engine.get();
    std::promise<int> port;
    std::future<int> port_future = port.get_future();
    thread_ = std::thread([this, config, engine = std::move(engine), port = std::move(port)]() mutable {
      auto load = [&engine]() -> Result<LoadedModel> {
        LoadedModel model;
        model.engine = std::move(engine);
        model.text = std::make_unique<FakeModelText>();
        model.name = "fake";
        return model;
      };
      auto wait_for_stop = [this](double timeout_s) {
        std::this_thread::sleep_for(std::chrono::duration<double>(std::min(timeout_s, 0.005)));
        return stop_.load();
      };
      status_ = run_server(config, load, {}, wait_for_stop, [&port](int p) { port.set_value(p); });
    });
    port_ = port_future.get();
  }
  ~RunningServer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

  int port() const { return port_; }
  FakeEngine& engine() { return *engine_; }
  void request_stop() { stop_ = true; }
  Status join() {
    thread_.join();
    return status_;
  }

 private:
  FakeEngine* engine_ = nullptr;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  int port_ = 0;
  Status status_;
};

std::string stream_request() {
  json body = {{"messages", {{{"role", "user"}, {"content", "hi"}}}}, {"stream", true}, {"max_tokens", 5}};
  return post_request("/v1/chat/completions", body.dump(), "test-key");
}

void wait_until_healthy(int port) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    auto res = httplib::Client("127.0.0.1", port).Get("/health");
    if (res && res->status == 200) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL() << "the server never became healthy";
}

// Once the server is healthy, sends one streamed chat request on conn and waits until the
// engine runs it (call under ASSERT_NO_FATAL_FAILURE).
void start_stream(RunningServer& server, RawConnection& conn) {
  wait_until_healthy(server.port());
  ASSERT_TRUE(conn.send_all(stream_request()));
  ASSERT_TRUE(server.engine().wait_for_active(1, kDrainWaitS));
}

TEST(ServerDrain, RunningRequestsFinishThenThePortCloses) {
  ServerConfig config = test_config();
  config.drain_timeout_s = 60;
  RunningServer server(config);
  RawConnection conn(server.port());
  ASSERT_NO_FATAL_FAILURE(start_stream(server, conn));
  server.request_stop();
  // The drain waits for the running request; the engine keeps stepping it to its end.
  while (server.engine().n_active() > 0) server.engine().step();
  ASSERT_TRUE(conn.read_until("data: [DONE]", kDrainWaitS)) << conn.received();
  EXPECT_NE(conn.received().find("\"finish_reason\":\"length\""), std::string::npos);
  conn.close();  // an idle keep-alive connection would hold the drain for its idle timeout
  EXPECT_TRUE(server.join().ok());
  EXPECT_FALSE(httplib::Client("127.0.0.1", server.port()).Get("/health"));
}

TEST(ServerDrain, DrainTimeoutAbortsWhatStillRuns) {
  ServerConfig config = test_config();
  config.drain_timeout_s = 0.05;
  RunningServer server(config);
  RawConnection conn(server.port());
  ASSERT_NO_FATAL_FAILURE(start_stream(server, conn));
  server.request_stop();  // nobody steps the engine: the request cannot finish in time
  EXPECT_TRUE(server.join().ok());
  conn.read_to_end(kDrainWaitS);
  EXPECT_NE(conn.received().find("\"code\":\"aborted\""), std::string::npos) << conn.received();
}

// A handler that submitted its request but had not yet started its answer when the drain began
// (held there until the engine is told to shut down) still writes its answer whole: the port
// closes only after every answer is written.
TEST(ServerDrain, AnswerBegunBeforeTheDrainIsWritten) {
  ServerConfig config = test_config();
  config.drain_timeout_s = 0.05;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  FakeEngine::Options options;
  options.on_submitted = [released] { released.wait(); };
  RunningServer server(config, options);
  RawConnection conn(server.port());
  ASSERT_NO_FATAL_FAILURE(start_stream(server, conn));
  server.request_stop();
  ASSERT_TRUE(server.engine().wait_for_shutdown(kDrainWaitS));
  release.set_value();
  EXPECT_TRUE(server.join().ok());
  conn.read_to_end(kDrainWaitS);
  EXPECT_NE(conn.received().find("\"code\":\"aborted\""), std::string::npos) << conn.received();
  EXPECT_NE(conn.received().find("0\r\n\r\n"), std::string::npos) << "the chunked body has no end";
}

// While the drain waits for running requests, new ones get 503 on the still-open port.
TEST(ServerDrain, RequestsDuringTheDrainGet503) {
  ServerConfig config = test_config();
  config.drain_timeout_s = 60;
  RunningServer server(config);
  RawConnection conn(server.port());
  ASSERT_NO_FATAL_FAILURE(start_stream(server, conn));
  server.request_stop();
  ASSERT_TRUE(server.engine().wait_for_shutdown(kDrainWaitS));
  httplib::Client client("127.0.0.1", server.port());
  auto health = client.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 503);
  RawConnection late(server.port());
  ASSERT_TRUE(late.send_all(stream_request()));
  ASSERT_TRUE(late.read_until("shutting_down", kDrainWaitS)) << late.received();
  EXPECT_EQ(late.received().rfind("HTTP/1.1 503", 0), 0u) << late.received();
  while (server.engine().n_active() > 0) server.engine().step();
  ASSERT_TRUE(conn.read_until("data: [DONE]", kDrainWaitS)) << conn.received();
  conn.close();
  EXPECT_TRUE(server.join().ok());
}

TEST(ServerDrain, LoadFailureIsReturned) {
  ServerConfig config = test_config();
  auto load = []() -> Result<LoadedModel> { return Status::NotFound("model.gguf: no such file"); };
  Status status = run_server(config, load, {}, [](double) { return false; });
  EXPECT_EQ(status.code(), Code::kNotFound);
  EXPECT_EQ(status.message(), "model.gguf: no such file");
}

TEST(ServerDrain, BadConfigIsRejectedBeforeBinding) {
  ServerConfig config = test_config();
  config.port = 70000;
  auto load = []() -> Result<LoadedModel> { return Status::Internal("must not load"); };
  Status status = run_server(config, load, {}, [](double) { return true; });
  EXPECT_EQ(status.message(), "--port 70000 is out of range [0, 65535]");
}

}  // namespace
}  // namespace strata::server
