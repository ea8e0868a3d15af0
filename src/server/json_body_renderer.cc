#include "server/json_body_renderer.h"

#include <utility>

namespace strata::server {

bool finished_normally(const RequestEvent& event) {
  return event.kind == RequestEvent::Kind::kDone &&
         (event.finish == FinishReason::kStop || event.finish == FinishReason::kLength);
}

ApiError error_for_unfinished(const RequestEvent& event) {
  if (event.kind == RequestEvent::Kind::kError) {
    return ApiError::Internal("generation failed: " + event.error);
  }
  return ApiError::Unavailable("aborted", "the request was aborted (the server is shutting down)");
}

JsonBodyRenderer::JsonBodyRenderer(SseWriter::WriteFn write, int n_choices, bool keep_logprobs,
                                   BuildFn build, ErrorFn error)
    : write_(std::move(write)),
      keep_logprobs_(keep_logprobs),
      build_(std::move(build)),
      error_(std::move(error)),
      results_(static_cast<size_t>(n_choices)) {}

bool JsonBodyRenderer::token(int choice, const RequestEvent& event) {
  if (!failure_) results_[choice].add(event, keep_logprobs_);
  return true;
}

bool JsonBodyRenderer::finish(int choice, const RequestEvent& event) {
  if (!failure_ && !finished_normally(event)) failure_ = error_for_unfinished(event);
  if (!failure_) results_[choice].add(event, keep_logprobs_);
  if (++n_finished_ < static_cast<int>(results_.size())) return true;
  return write_(failure_ ? dump_json(error_(*failure_)) : build_(results_));
}

}  // namespace strata::server
