#include "tools/batch_runner.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "base/clock.h"
#include "kvcache/block_hash.h"

namespace strata {

void BatchRunner::attach(EngineOptions* options) {
  options->logits_tap = [this](uint64_t id, int index, std::span<const float> logits) { on_logits(id, index, logits); };
  options->observer = this;
}

void BatchRunner::on_logits(uint64_t id, int index, std::span<const float> logits) {
  uint64_t h = hash_bytes64(logits.data(), logits.size_bytes(), 0);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_id_.find(id);
  if (it != by_id_.end()) it->second->logits_hashes.push_back(h);
}

void BatchRunner::on_request_finished(const RequestRecord& record) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_id_.find(record.id);
  if (it != by_id_.end()) it->second->slot = record.slot;
}

void BatchRunner::on_event(BatchOutcome* out, const RequestEvent& e) {
  const double now = monotonic_s();
  std::lock_guard<std::mutex> lock(mu_);
  if (e.kind == RequestEvent::Kind::kToken) {
    if (out->first_token_s == 0) out->first_token_s = now;
    out->tokens.push_back(e.token);
    out->text += e.text;
    return;
  }
  // EOS ends a request without a token event: its time is still the first token's.
  if (out->first_token_s == 0 && e.completion_tokens > 0) out->first_token_s = now;
  out->text += e.text;
  out->done = e;
  out->finished_s = now;
  --n_unfinished_;
  cv_.notify_all();
}

std::vector<BatchOutcome> BatchRunner::run(Engine& engine, const std::vector<BatchJob>& jobs) {
  std::vector<BatchOutcome> outs(jobs.size());
  const double start_s = monotonic_s();
  for (size_t i = 0; i < jobs.size(); ++i) {
    double wait_s = start_s + jobs[i].delay_s - monotonic_s();
    if (wait_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait_s));
    BatchOutcome* out = &outs[i];
    // Held across submit so the engine thread cannot report this id before it is known.
    std::lock_guard<std::mutex> lock(mu_);
    out->submit_s = monotonic_s();
    auto id = engine.submit(jobs[i].request, [this, out](const RequestEvent& e) { on_event(out, e); });
    if (!id.ok()) {
      out->submit_status = id.status();
      continue;
    }
    out->id = *id;
    by_id_[*id] = out;
    ++n_unfinished_;
  }
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return n_unfinished_ == 0; });
  for (const BatchOutcome& o : outs) by_id_.erase(o.id);
  return outs;
}

int first_difference(const BatchOutcome& a, const BatchOutcome& b) {
  size_t n = std::max(a.tokens.size(), b.tokens.size());
  for (size_t i = 0; i < n; ++i) {
    if (i >= a.tokens.size() || i >= b.tokens.size() || a.tokens[i] != b.tokens[i]) return static_cast<int>(i);
    if (i >= a.logits_hashes.size() || i >= b.logits_hashes.size() || a.logits_hashes[i] != b.logits_hashes[i]) {
      return static_cast<int>(i);
    }
  }
  if (a.logits_hashes != b.logits_hashes) return static_cast<int>(n);
  return -1;
}

}  // namespace strata
