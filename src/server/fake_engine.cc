#include "server/fake_engine.h"

#include <chrono>
#include <cstdlib>

namespace strata::server::testing {

namespace {

constexpr int32_t kFirstByte = 3;  // FakeModelText's byte tokens

// Length of the longest suffix of text that is a proper prefix of some stop string.
size_t held_back(const std::string& text, const std::vector<std::string>& stops) {
  size_t hold = 0;
  for (const std::string& stop : stops) {
    for (size_t n = std::min(stop.size() - 1, text.size()); n > hold; --n) {
      if (text.compare(text.size() - n, n, stop, 0, n) == 0) {
        hold = n;
        break;
      }
    }
  }
  return hold;
}

}  // namespace

FakeEngine::FakeEngine(Options options) : options_(std::move(options)) {
  engine_options_.n_parallel = options_.n_parallel;
  engine_options_.n_ctx = options_.n_ctx;
  engine_options_.max_queue = options_.max_queue;
  if (!options_.manual) auto_thread_ = std::thread([this] { auto_loop(); });
}

FakeEngine::~FakeEngine() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    quit_ = true;
  }
  cv_.notify_all();
  if (auto_thread_.joinable()) auto_thread_.join();
}

Result<RequestId> FakeEngine::submit(GenerateRequest request, RequestCallback callback) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return Status::Cancelled("the engine is shutting down");
  if (request.prompt_tokens.empty()) return Status::InvalidArgument("empty prompt");
  if (static_cast<int>(request.prompt_tokens.size()) + request.max_tokens > options_.n_ctx) {
    return Status::OutOfRange("prompt + max_tokens exceeds the context");
  }
  if (active_.size() >= static_cast<size_t>(options_.n_parallel + options_.max_queue)) {
    return Status::ResourceExhausted("the request queue is full");
  }
  submitted_.push_back(request);
  RequestId id = next_id_++;
  Running running;
  running.request = std::move(request);
  running.callback = std::move(callback);
  active_.emplace(id, std::move(running));
  cv_.notify_all();
  return id;
}

void FakeEngine::cancel(RequestId id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = active_.find(id);
  if (it == active_.end()) return;
  it->second.cancelled = true;
  any_cancelled_ = true;
  cv_.notify_all();
}

void FakeEngine::finish(Running& r, FinishReason reason, std::string text) {
  RequestEvent done;
  done.kind = RequestEvent::Kind::kDone;
  done.finish = reason;
  done.text = std::move(text);
  done.prompt_tokens = static_cast<int>(r.request.prompt_tokens.size());
  done.cached_tokens = options_.cached_tokens;
  done.completion_tokens = r.generated;
  r.callback(done);
}

bool FakeEngine::advance(RequestId id, Running& r) {
  if (r.cancelled) {
    finish(r, FinishReason::kAbort, "");
    return true;
  }
  const std::string& reply = options_.reply;
  if (!r.request.ignore_eos && r.full.size() >= reply.size()) {
    finish(r, FinishReason::kStop, r.full.substr(r.sent));  // the "EOS token"
    return true;
  }
  const char c = reply[r.full.size() % reply.size()];
  r.full.push_back(c);
  r.generated++;
  RequestEvent token;
  token.token = kFirstByte + static_cast<unsigned char>(c);
  token.logprob = -0.5f;
  for (int k = 0; k < r.request.sampling.n_top_logprobs; ++k) {
    token.top_logprobs.push_back({token.token + k, -0.5f - static_cast<float>(k)});
  }
  for (const std::string& stop : r.request.stop) {
    size_t at = r.full.find(stop);
    if (at != std::string::npos) {
      token.text = r.full.substr(r.sent, at - std::min(at, r.sent));
      r.callback(token);
      finish(r, FinishReason::kStop, "");
      return true;
    }
  }
  const size_t visible = r.full.size() - held_back(r.full, r.request.stop);
  token.text = r.full.substr(r.sent, visible - r.sent);
  r.sent = visible;
  r.callback(token);
  if (r.generated >= r.request.max_tokens) {
    finish(r, FinishReason::kLength, r.full.substr(r.sent));
    return true;
  }
  return false;
}

void FakeEngine::step() {
  std::lock_guard<std::mutex> lock(mu_);
  // Only the first n_parallel requests run; the rest wait in the queue.
  int n_run = 0;
  for (auto it = active_.begin(); it != active_.end() && n_run < options_.n_parallel; ++n_run) {
    it = advance(it->first, it->second) ? active_.erase(it) : std::next(it);
  }
  cv_.notify_all();
}

void FakeEngine::auto_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!quit_) {
    cv_.wait_for(lock, std::chrono::milliseconds(1));
    lock.unlock();
    step();
    lock.lock();
  }
}

void FakeEngine::shutdown(double timeout_s) {
  std::unique_lock<std::mutex> lock(mu_);
  stopping_ = true;
  cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] { return active_.empty(); });
  for (auto& [id, r] : active_) finish(r, FinishReason::kAbort, "");
  active_.clear();
  cv_.notify_all();
}

EngineSnapshot FakeEngine::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  EngineSnapshot s;
  s.model_name = "fake";
  s.arch = "fake";
  s.n_ctx = options_.n_ctx;
  s.n_parallel = options_.n_parallel;
  s.n_groups = 1;
  s.n_stages = 1;
  s.n_threads = 1;
  for (int i = 0; i < options_.n_parallel; ++i) s.slots.push_back(SlotInfo{i, 0});
  int slot = 0;
  for (const auto& [id, r] : active_) {
    if (slot == options_.n_parallel) break;
    SlotInfo& info = s.slots[slot++];
    info.state = SlotState::kGenerating;
    info.prompt_tokens = static_cast<int>(r.request.prompt_tokens.size());
    info.generated = r.generated;
    info.request_id = id;
  }
  s.n_running = slot;
  s.n_waiting = static_cast<int>(active_.size()) - slot;
  return s;
}

const Tokenizer& FakeEngine::tokenizer() const { std::abort(); }

bool FakeEngine::wait_for_active(size_t n_active, double timeout_s) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, std::chrono::duration<double>(timeout_s),
                      [&] { return active_.size() == n_active; });
}

bool FakeEngine::wait_for_cancel(double timeout_s) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] { return any_cancelled_; });
}

std::vector<GenerateRequest> FakeEngine::submitted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return submitted_;
}

size_t FakeEngine::n_active() const {
  std::lock_guard<std::mutex> lock(mu_);
  return active_.size();
}

}  // namespace strata::server::testing
