// TestFileServer (tests only): an HTTP server on 127.0.0.1 that serves one file the way
// Hugging Face does: GET/HEAD /OWNER/REPO/resolve/main/NAME answer 302 with X-Linked-Etag
// and X-Linked-Size, and /cdn/NAME serves the bytes (with Range support). It can cut the
// first transfer after some bytes, and records every request. Runs its own thread.
#pragma once

#include <httplib.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace strata {

class TestFileServer {
 public:
  struct Request {
    std::string method, path, range;
  };

  // content is served as NAME under OWNER/REPO; etag goes into X-Linked-Etag.
  TestFileServer(std::string repo, std::string name, std::string content, std::string etag);
  ~TestFileServer();

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string url() const { return endpoint() + "/" + repo_ + "/resolve/main/" + name_; }
  // The first GET of the bytes stops after n_bytes and drops the connection.
  void cut_first_transfer_after(size_t n_bytes) { cut_after_ = n_bytes; }
  std::vector<Request> requests() const;

 private:
  void record(const httplib::Request& req);

  std::string repo_, name_, content_, etag_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<size_t> cut_after_{0};
  std::atomic<int> n_transfers_{0};
  mutable std::mutex mu_;
  std::vector<Request> requests_;
};

}  // namespace strata
