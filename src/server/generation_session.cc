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
  std::deque<ChoiceEvent> events;
};

GenerationSession::GenerationSession(Engine& engine, std::shared_ptr<Mailbox> mailbox)
    : engine_(engine), mailbox_(std::move(mailbox)) {}

Result<std::unique_ptr<GenerationSession>> GenerationSession::Start(Engine& engine, GenerateRequest request) {
  std::vector<GenerateRequest> one;
  one.push_back(std::move(request));
  return Start(engine, std::move(one));
}

Result<std::unique_ptr<GenerationSession>> GenerationSession::Start(Engine& engine,
                                                                     std::vector<GenerateRequest> requests) {
  auto mailbox = std::make_shared<Mailbox>();
  std::unique_ptr<GenerationSession> session(new GenerationSession(engine, mailbox));
  for (size_t c = 0; c < requests.size(); ++c) {
    // The callback keeps the mailbox alive on its own: the engine may still deliver the final
    // event after the HTTP side has gone.
    RequestCallback callback = [mailbox, choice = static_cast<int>(c)](const RequestEvent& event) {
      {
        std::lock_guard<std::mutex> lock(mailbox->mu);
        mailbox->events.push_back(ChoiceEvent{choice, event});
      }
      mailbox->cv.notify_one();
    };
    Result<RequestId> id = engine.submit(std::move(requests[c]), std::move(callback));
    if (!id.ok()) {
      // The destructor cancels the choices already submitted; the refused one has nothing to cancel.
      return id.status();
    }
    session->ids_.push_back(*id);
    session->choice_finished_.push_back(false);
  }
  return session;
}

GenerationSession::~GenerationSession() {
  if (!finished()) cancel();
}

std::optional<ChoiceEvent> GenerationSession::next(double timeout_s) {
  std::unique_lock<std::mutex> lock(mailbox_->mu);
  auto has_event = [&] { return !mailbox_->events.empty(); };
  if (!mailbox_->cv.wait_for(lock, std::chrono::duration<double>(timeout_s), has_event)) {
    return std::nullopt;
  }
  ChoiceEvent e = std::move(mailbox_->events.front());
  mailbox_->events.pop_front();
  if (e.event.kind != RequestEvent::Kind::kToken && !choice_finished_[e.choice]) {
    choice_finished_[e.choice] = true;
    ++n_finished_;
  }
  return e;
}

void GenerationSession::cancel() {
  if (cancelled_ || finished()) return;
  cancelled_ = true;
  for (size_t c = 0; c < ids_.size(); ++c) {
    if (!choice_finished_[c]) engine_.cancel(ids_[c]);
  }
}

}  // namespace strata::server
