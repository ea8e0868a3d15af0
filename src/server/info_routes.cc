// Read-only and utility endpoints: models, status, slots, health, tokenize, detokenize.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/engine_types.h"
#include "server/json_fields.h"
#include "server/routes.h"

namespace strata::server {

namespace {

using httplib::Request;
using httplib::Response;

json model_object(const ServerState& state, const ServedModel& model) {
  return {{"id", model.name},
          {"object", "model"},
          {"created", state.started_unix_s()},
          {"owned_by", "strata"},
          {"context_length", model.n_ctx}};
}

void serve_health(const RouteContext& ctx, Response& res) {
  if (ctx.state->draining()) return reply_json(res, 503, {{"status", "shutting_down"}});
  if (!ctx.state->model()) return reply_json(res, 503, {{"status", "loading"}});
  reply_json(res, 200, {{"status", "ok"}});
}

const char* slot_state(SlotState state) {
  switch (state) {
    case SlotState::kIdle: return "idle";
    case SlotState::kReading: return "reading";
    case SlotState::kGenerating: return "generating";
  }
  return "unknown";
}

json slots_json(const EngineSnapshot& snapshot) {
  json slots = json::array();
  for (const SlotInfo& s : snapshot.slots) {
    slots.push_back({{"id", s.slot},
                     {"group", s.group},
                     {"state", slot_state(s.state)},
                     {"prompt_tokens", s.prompt_tokens},
                     {"generated_tokens", s.generated},
                     {"tok_s", s.tok_s},
                     {"request_id", s.request_id},
                     {"spec_draft_tokens", s.spec.draft_tokens},
                     {"spec_accepted_tokens", s.spec.accepted_tokens}});
  }
  return slots;
}

// Speculative decoding: the engine's totals and each running request's own counts.
json spec_json(const EngineSnapshot& snap) {
  json requests = json::array();
  for (const SlotInfo& s : snap.slots) {
    if (s.request_id == 0) continue;
    requests.push_back({{"request_id", s.request_id},
                        {"slot", s.slot},
                        {"drafts", s.spec.drafts},
                        {"draft_tokens", s.spec.draft_tokens},
                        {"accepted_tokens", s.spec.accepted_tokens}});
  }
  return {{"max_draft_tokens", snap.spec_max_draft_tokens},
          {"drafts", snap.spec.drafts},
          {"draft_tokens", snap.spec.draft_tokens},
          {"accepted_tokens", snap.spec.accepted_tokens},
          {"accepted_per_pos", snap.spec_accepted_per_pos},
          {"requests", std::move(requests)}};
}

json config_json(const ServerConfig& c) {
  if (c.config_file.empty()) return nullptr;
  return {{"file", c.config_file}, {"from_file", c.config_from_file}, {"overridden_by_flags", c.config_overridden}};
}

json status_json(const ServerState& state, const ServedModel& model, const EngineSnapshot& snap) {
  const KvStats& kv = snap.kv;
  json load = {{"running", snap.n_running},
               {"waiting", snap.n_waiting},
               {"decode_tok_s", snap.decode_tok_s},
               {"prefill_tok_s", snap.prefill_tok_s},
               {"steps", snap.steps},
               {"stage_busy_s", snap.stage_busy_s},
               {"group_busy_s", snap.group_busy_s},
               {"kv", {{"dtype", kv.dtype},
                       {"block_tokens", kv.block_tokens},
                       {"blocks_total", kv.blocks_total},
                       {"blocks_used", kv.blocks_used},
                       {"blocks_cached", kv.blocks_cached},
                       {"window_tokens", kv.window_tokens},
                       {"window_blocks_total", kv.window_blocks_total},
                       {"window_blocks_used", kv.window_blocks_used},
                       {"window_blocks_cached", kv.window_blocks_cached},
                       {"parked_blocks", kv.parked_blocks},
                       {"prefix_hit_tokens", kv.prefix_hit_tokens}}},
               {"spec", spec_json(snap)}};
  return {{"model", model.name},         {"arch", snap.arch},
          {"context", snap.n_ctx},       {"parallel", snap.n_parallel},
          {"groups", snap.n_groups},     {"stages", snap.n_stages},
          {"joined_groups", snap.joined_groups},
          {"threads", snap.n_threads},   {"version", state.config().version},
          {"config", config_json(state.config())},
          {"uptime_s", state.uptime_s()}, {"load", load}};
}

void serve_tokenize(const RouteContext& ctx, const Request& req, Response& res) {
  const ServedModel* model = ready_model(ctx, res, ErrorStyle::kOpenAi);
  if (!model) return;
  Result<RequestJson> body = parse_json_object(req.body);
  std::string content;
  bool add_special = false, with_pieces = false;
  Status st = body.ok() ? Status::Ok() : body.status();
  if (st.ok() && !find_field(*body, "content")) st = Status::InvalidArgument("'content' is required");
  if (st.ok()) st = read_string(*body, "content", &content);
  if (st.ok()) st = read_bool(*body, "add_special", &add_special);
  if (st.ok()) st = read_bool(*body, "with_pieces", &with_pieces);
  Result<std::vector<int32_t>> tokens =
      st.ok() ? model->text->tokenize(content, add_special) : Result<std::vector<int32_t>>(st);
  if (!tokens.ok()) return reply_error(res, api_error_from_status(tokens.status()), ErrorStyle::kOpenAi);
  json out = {{"tokens", *tokens}};
  if (with_pieces) {
    json pieces = json::array();
    for (int32_t t : *tokens) pieces.push_back(model->text->token_piece(t));
    out["pieces"] = pieces;
  }
  reply_json(res, 200, out);
}

Result<std::vector<int32_t>> read_token_ids(const RequestJson& body, int vocab_size) {
  const RequestJson* tokens = find_field(body, "tokens");
  if (!tokens || !tokens->is_array()) {
    return Status::InvalidArgument("'tokens' must be an array of token ids");
  }
  std::vector<int32_t> ids;
  for (size_t i = 0; i < tokens->size(); ++i) {
    const RequestJson& t = (*tokens)[i];
    if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() >= vocab_size) {
      return Status::InvalidArgument(fmt::format("'tokens[{}]' = {} is not a token id (vocab has {})",
                                                 i, describe_value(t), vocab_size));
    }
    ids.push_back(static_cast<int32_t>(t.get<int64_t>()));
  }
  return ids;
}

void serve_detokenize(const RouteContext& ctx, const Request& req, Response& res) {
  const ServedModel* model = ready_model(ctx, res, ErrorStyle::kOpenAi);
  if (!model) return;
  Result<RequestJson> body = parse_json_object(req.body);
  Result<std::vector<int32_t>> ids =
      body.ok() ? read_token_ids(*body, model->text->vocab_size()) : Result<std::vector<int32_t>>(body.status());
  if (!ids.ok()) return reply_error(res, api_error_from_status(ids.status()), ErrorStyle::kOpenAi);
  reply_json(res, 200, {{"content", model->text->detokenize(*ids)}});
}

}  // namespace

void add_info_routes(httplib::Server& http, RouteContext ctx) {
  http.Get("/health", [ctx](const Request&, Response& res) { serve_health(ctx, res); });
  http.Get("/v1/models", [ctx](const Request&, Response& res) {
    const ServedModel* model = ready_model(ctx, res, ErrorStyle::kOpenAi);
    if (!model) return;
    reply_json(res, 200, {{"object", "list"}, {"data", json::array({model_object(*ctx.state, *model)})}});
  });
  http.Get("/v1/models/(.+)", [ctx](const Request& req, Response& res) {
    const ServedModel* model = ready_model(ctx, res, ErrorStyle::kOpenAi);
    if (!model) return;
    if (req.matches[1] != model->name) {
      return reply_error(res, ApiError::NotFound("no model named '" + std::string(req.matches[1]) +
                                                 "'; this server serves '" + model->name + "'"),
                         ErrorStyle::kOpenAi);
    }
    reply_json(res, 200, model_object(*ctx.state, *model));
  });
  http.Get("/v1/status", [ctx](const Request&, Response& res) {
    const ServedModel* model = ready_model(ctx, res, ErrorStyle::kOpenAi);
    if (!model) return;
    reply_json(res, 200, status_json(*ctx.state, *model, model->engine->snapshot()));
  });
  http.Get("/slots", [ctx](const Request&, Response& res) {
    const ServedModel* model = ready_model(ctx, res, ErrorStyle::kOpenAi);
    if (!model) return;
    reply_json(res, 200, {{"slots", slots_json(model->engine->snapshot())}});
  });
  http.Post("/tokenize", [ctx](const Request& req, Response& res) { serve_tokenize(ctx, req, res); });
  http.Post("/detokenize", [ctx](const Request& req, Response& res) { serve_detokenize(ctx, req, res); });
}

}  // namespace strata::server
