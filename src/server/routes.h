// Route groups of the HTTP server and what they share. Internal to the server module.
//
// Each add_*_routes registers its handlers on the httplib server; handlers run concurrently on
// httplib's worker threads and touch shared state only through ServerState (thread-safe), the
// engine's thread-safe API, and the (thread-safe) hooks.
#pragma once

#include <httplib.h>

#include "server/http_reply.h"
#include "server/route_hooks.h"
#include "server/server_state.h"

namespace strata::server {

struct RouteContext {
  ServerState* state = nullptr;
  const RouteHooks* hooks = nullptr;
};

// The served model, or nullptr after answering 503 because it is still loading.
const ServedModel* ready_model(const RouteContext& ctx, httplib::Response& res, ErrorStyle style);
// Like ready_model, and also answers 503 once the server is draining (no new generations).
const ServedModel* accepting_model(const RouteContext& ctx, httplib::Response& res,
                                   ErrorStyle style);

// POST /v1/chat/completions, /v1/completions, /v1/messages, /v1/messages/count_tokens.
void add_generation_routes(httplib::Server& http, RouteContext ctx);
// GET and DELETE /v1/responses/{id}: the Responses API's kept answers; GET
// /v1/responses/{id}/input_items: their requests' input items, a page at a time.
void add_stored_response_routes(httplib::Server& http, RouteContext ctx);
// POST /v1/embeddings.
void add_embedding_routes(httplib::Server& http, RouteContext ctx);
// GET /v1/models[/{id}], /v1/status, /slots, /health; POST /tokenize, /detokenize.
void add_info_routes(httplib::Server& http, RouteContext ctx);
// GET /metrics, and GET of anything else as a web asset (registered last: it catches all).
void add_web_routes(httplib::Server& http, RouteContext ctx);

}  // namespace strata::server
