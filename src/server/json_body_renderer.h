// JsonBodyRenderer: renders a non-streaming answer. Gathers each choice's events into a
// GenerationResult and writes one JSON document when the last choice finishes.
//
// The HTTP status (200) is committed when the first event arrives, so a request that fails
// later (engine error, aborted by shutdown) gets its error object in a 200 body: the error of
// the first choice that ended without stop or length (the others are cancelled then).
// Owned by one HTTP thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/api_error.h"
#include "server/generation_pump.h"
#include "server/generation_result.h"
#include "server/sse.h"

namespace strata::server {

class JsonBodyRenderer : public ResponseRenderer {
 public:
  // The answer's body text (dump_json of the API's document: OpenAI's nlohmann::json, Anthropic's
  // nlohmann::ordered_json) from every choice's result, index = choice.
  using BuildFn = std::function<std::string(const std::vector<GenerationResult>&)>;
  using ErrorFn = std::function<nlohmann::json(const ApiError&)>;

  JsonBodyRenderer(SseWriter::WriteFn write, int n_choices, bool keep_logprobs, BuildFn build, ErrorFn error);

  bool start() override { return true; }
  bool token(int choice, const RequestEvent& event) override;
  bool finish(int choice, const RequestEvent& event) override;
  bool keep_alive() override { return true; }

 private:
  SseWriter::WriteFn write_;
  bool keep_logprobs_;
  BuildFn build_;
  ErrorFn error_;
  std::vector<GenerationResult> results_;  // index = choice
  int n_finished_ = 0;
  std::optional<ApiError> failure_;  // the first choice's that ended without stop or length
};

// The client-facing error for a request that ended without stop/length: an engine error or
// an abort (only seen by a client still connected, i.e. when the server is shutting down).
ApiError error_for_unfinished(const RequestEvent& event);

// True when the final event is a normal end (kDone with stop or length).
bool finished_normally(const RequestEvent& event);

}  // namespace strata::server
