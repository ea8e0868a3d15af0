#include "fetch/test_file_server.h"

#include <chrono>
#include <thread>

namespace strata {

TestFileServer::TestFileServer(std::string repo, std::string name, std::string content, std::string etag)
    : repo_(std::move(repo)), name_(std::move(name)), content_(std::move(content)), etag_(std::move(etag)) {
  server_.Get("/" + repo_ + "/resolve/main/(.*)", [this](const httplib::Request& req, httplib::Response& res) {
    record(req);
    if (req.matches[1] != name_) {
      res.status = 404;
      return;
    }
    res.status = 302;
    res.set_header("Location", "/cdn/" + name_);
    res.set_header("X-Linked-Etag", "\"" + etag_ + "\"");
    res.set_header("X-Linked-Size", std::to_string(content_.size()));
  });
  server_.Get("/cdn/(.*)", [this](const httplib::Request& req, httplib::Response& res) {
    record(req);
    bool cut = req.method == "GET" && n_transfers_.fetch_add(1) == 0 && cut_after_ > 0;
    size_t cut_at = cut_after_;
    res.set_content_provider(content_.size(), "application/octet-stream",
                             [this, cut, cut_at](size_t offset, size_t length, httplib::DataSink& sink) {
                               size_t n = length;
                               if (cut) {
                                 if (offset >= cut_at) return false;  // drop the connection
                                 n = std::min(length, cut_at - offset);
                               }
                               sink.write(content_.data() + offset, n);
                               return true;
                             });
  });
  port_ = server_.bind_to_any_port("127.0.0.1");
  if (port_ <= 0) return;  // no server: the tests' requests fail and say so
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  // stop() is a no-op until the accept loop runs, so a test that made no request could
  // otherwise stop the server before it started and then wait forever for the thread.
  while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TestFileServer::~TestFileServer() {
  server_.stop();
  if (thread_.joinable()) thread_.join();
}

void TestFileServer::record(const httplib::Request& req) {
  std::lock_guard<std::mutex> lock(mu_);
  requests_.push_back(Request{req.method, req.path, req.get_header_value("Range")});
}

std::vector<TestFileServer::Request> TestFileServer::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

}  // namespace strata
