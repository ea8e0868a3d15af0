#include "server/generation_session.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <utility>

namespace strata::server {

struct GenerationSession::Mailbox {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<RequestEvent> events;
};

GenerationSession::GenerationSession(Engine& engine, std::shared_ptr<Mailbox> mailbox)
    : engine_(engine), mailbox_(std::move(mailbox)) {}

Result<std::unique_ptr<GenerationSession>> GenerationSession::Start(Engine& engine,
                                                                     GenerateRequest request) {
  auto mailbox = std::make_shared<Mailbox>();
  // The callback keeps the mailbox alive on its own: the engine may still deliver the final
  // event after the HTTP side has gone.
  RequestCallback callback = [mailbox](const RequestEvent& event) {
    {
      std::lock_guard<std::mutex> lock(mailbox->mu);
      mailbox->events.push_back(event);
    }
    mailbox->cv.notify_one();
  };
  std::unique_ptr<GenerationSession> session(new GenerationSession(engine, mailbox));
  Result<RequestId> id = engine.submit(std::move(request), std::move(callback));
  if (!id.ok()) {
    session->finished_ = true;  // nothing to cancel
    return id.status();
  }
  session->id_ = *id;
  return session;
}

GenerationSession::~GenerationSession() {
  if (!finished_) cancel();
}

std::optional<RequestEvent> GenerationSession::next(double timeout_s) {
  std::unique_lock<std::mutex> lock(mailbox_->mu);
  auto has_event = [&] { return !mailbox_->events.empty(); };
  if (!mailbox_->cv.wait_for(lock, std::chrono::duration<double>(timeout_s), has_event)) {
    return std::nullopt;
  }
  RequestEvent event = std::move(mailbox_->events.front());
  mailbox_->events.pop_front();
  if (event.kind != RequestEvent::Kind::kToken) finished_ = true;
  return event;
}

void GenerationSession::cancel() {
  if (cancelled_ || finished_) return;
  cancelled_ = true;
  engine_.cancel(id_);
}

}  // namespace strata::server
