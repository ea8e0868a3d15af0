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

JsonBodyRenderer::JsonBodyRenderer(SseWriter::WriteFn write, bool keep_logprobs, BuildFn build,
                                   ErrorFn error)
    : write_(std::move(write)),
      keep_logprobs_(keep_logprobs),
      build_(std::move(build)),
      error_(std::move(error)) {}

bool JsonBodyRenderer::token(const RequestEvent& event) {
  result_.add(event, keep_logprobs_);
  return true;
}

bool JsonBodyRenderer::finish(const RequestEvent& event) {
  result_.add(event, keep_logprobs_);
  return write_(finished_normally(event) ? build_(result_) : dump_json(error_(error_for_unfinished(event))));
}

}  // namespace strata::server
