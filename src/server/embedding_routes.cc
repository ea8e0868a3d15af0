// POST /v1/embeddings (OpenAI): each input read by the engine as an embed request (its last
// token's final-norm output), L2-normalised, in one JSON answer. Inputs run in parallel, at
// most --parallel of them in the engine at a time, so a long input list never fills the
// engine's queue; the answer is written only once every input is done.
#include <deque>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "server/embedding_request.h"
#include "server/generation_session.h"
#include "server/json_fields.h"
#include "server/routes.h"

namespace strata::server {

namespace {

Result<std::vector<int32_t>> input_tokens(const ModelText& text,
                                          const std::variant<std::string, std::vector<int32_t>>& input) {
  if (const auto* ids = std::get_if<std::vector<int32_t>>(&input)) return *ids;
  return text.tokenize(std::get<std::string>(input), /*add_special=*/true);
}

// Runs every prompt as an embed request; pooled[i] is prompt i's vector. The first error
// (submitting or running) ends the run: the sessions still open are cancelled as they go.
Status embed_all(Engine& engine, std::vector<std::vector<int32_t>> prompts, double poll_s,
                 std::vector<std::vector<float>>* pooled) {
  pooled->assign(prompts.size(), {});
  const size_t in_flight = static_cast<size_t>(std::max(1, engine.options().n_parallel));
  std::deque<std::pair<size_t, std::unique_ptr<GenerationSession>>> running;
  size_t next = 0;
  while (next < prompts.size() || !running.empty()) {
    while (next < prompts.size() && running.size() < in_flight) {
      GenerateRequest r;
      r.prompt_tokens = std::move(prompts[next]);
      r.embed = true;
      Result<std::unique_ptr<GenerationSession>> session = GenerationSession::Start(engine, std::move(r));
      if (!session.ok()) {
        return Status(session.status().code(), fmt::format("input {}: {}", next, session.status().message()));
      }
      running.emplace_back(next++, std::move(session).value());
    }
    auto& [index, session] = running.front();
    std::optional<ChoiceEvent> next_event = session->next(poll_s);
    if (!next_event) continue;
    RequestEvent* e = &next_event->event;
    if (e->kind == RequestEvent::Kind::kError) return Status::Internal(fmt::format("input {}: {}", index, e->error));
    if (e->kind != RequestEvent::Kind::kDone) continue;
    if (e->finish != FinishReason::kStop) return Status::Cancelled(fmt::format("input {} was aborted", index));
    (*pooled)[index] = std::move(e->embedding);
    running.pop_front();
  }
  return Status::Ok();
}

void serve_embeddings(const RouteContext& ctx, const httplib::Request& req, httplib::Response& res) {
  constexpr ErrorStyle kStyle = ErrorStyle::kOpenAi;
  // Taken before the draining check: a drain that begins after it waits for this answer.
  AnswerTicket ticket = ctx.state->hold_answer();
  const ServedModel* model = accepting_model(ctx, res, kStyle);
  if (!model) return;
  Result<RequestJson> body = parse_json_object(req.body);
  if (!body.ok()) return reply_error(res, api_error_from_status(body.status()), kStyle);
  Result<EmbeddingRequest> request = parse_embedding_request(*body);
  if (!request.ok()) return reply_error(res, api_error_from_status(request.status()), kStyle);
  std::vector<std::vector<int32_t>> prompts;
  int prompt_tokens = 0;
  for (size_t i = 0; i < request->inputs.size(); ++i) {
    Result<std::vector<int32_t>> tokens = input_tokens(*model->text, request->inputs[i]);
    if (!tokens.ok()) return reply_error(res, api_error_from_status(tokens.status()), kStyle);
    prompt_tokens += static_cast<int>(tokens->size());
    prompts.push_back(std::move(tokens).value());
  }
  std::vector<std::vector<float>> pooled;
  const Status run = embed_all(*model->engine, std::move(prompts), ctx.state->config().poll_s, &pooled);
  if (!run.ok()) return reply_error(res, api_error_from_status(run), kStyle);
  const int n_embd = static_cast<int>(pooled.front().size());
  if (request->dimensions > n_embd) {
    return reply_error(res, api_error_from_status(Status::InvalidArgument(fmt::format(
                                "'dimensions' is {}, more than the model's {}", request->dimensions, n_embd))),
                       kStyle);
  }
  std::vector<std::vector<float>> vectors;
  for (const std::vector<float>& v : pooled) vectors.push_back(served_embedding(v, request->dimensions));
  reply_json(res, 200, embedding_response_json(vectors, request->base64, model->name, prompt_tokens));
}

}  // namespace

void add_embedding_routes(httplib::Server& http, RouteContext ctx) {
  http.Post("/v1/embeddings", [ctx](const httplib::Request& req, httplib::Response& res) {
    serve_embeddings(ctx, req, res);
  });
}

}  // namespace strata::server
