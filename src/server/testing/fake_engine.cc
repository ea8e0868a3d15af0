#include "server/testing/fake_engine.h"

#include <chrono>
#include <cstdlib>

namespace strata::server::testing {

namespace {

constexpr int32_t kFirstByte = 3;  // FakeModelText's byte tokens

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
  Result<RequestId> id = add_request(std::move(request), std::move(callback));
  if (id.ok() && options_.on_submitted) options_.on_submitted();
  return id;
}

Result<RequestId> FakeEngine::add_request(GenerateRequest request, RequestCallback callback) {
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
  running.stop = StopMatcher(running.request.stop);
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
  std::string held;
  if (!r.request.ignore_eos && static_cast<size_t>(r.generated) >= reply.size()) {
    r.stop.flush(&held);
    finish(r, FinishReason::kStop, std::move(held));  // the "EOS token"
    return true;
  }
  const char c = reply[static_cast<size_t>(r.generated) % reply.size()];
  r.generated++;
  RequestEvent token;
  token.token = kFirstByte + static_cast<unsigned char>(c);
  token.logprob = -0.5f;
  for (int k = 0; k < r.request.sampling.n_top_logprobs; ++k) {
    token.top_logprobs.push_back({token.token + k, -0.5f - static_cast<float>(k)});
  }
  const bool stopped = r.stop.feed(std::string_view(&c, 1), &token.text);
  r.callback(token);
  if (stopped) {
    finish(r, FinishReason::kStop, "");
    return true;
  }
  if (r.generated >= r.request.max_tokens) {
    r.stop.flush(&held);
    finish(r, FinishReason::kLength, std::move(held));
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
  cv_.notify_all();
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
  s.slots.resize(static_cast<size_t>(options_.n_parallel));
  for (int i = 0; i < options_.n_parallel; ++i) s.slots[i].slot = i;
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

bool FakeEngine::wait_for_shutdown(double timeout_s) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] { return stopping_; });
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
