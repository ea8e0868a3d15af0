// GET and DELETE /v1/responses/{id}: the answers the Responses API kept (ResponseStore), as
// OpenAI's client.responses.retrieve() and .delete() ask for them.
#include <string>

#include "server/routes.h"

namespace strata::server {
namespace {

ApiError not_kept(const std::string& id) {
  return ApiError::NotFound("no response with id '" + id +
                            "' is kept here (answered with store: false, evicted, deleted, or by another "
                            "server or before a restart)");
}

}  // namespace

void add_stored_response_routes(httplib::Server& http, RouteContext ctx) {
  http.Get("/v1/responses/([^/]+)", [ctx](const httplib::Request& req, httplib::Response& res) {
    if (req.has_param("stream") && req.get_param_value("stream") != "false") {
      return reply_error(res,
                         api_error_from_status(Status::Unsupported(
                             "'stream' is not supported when retrieving a response: it is answered whole")),
                         ErrorStyle::kOpenAi);
    }
    const std::string id = req.matches[1];
    std::optional<nlohmann::json> answer = ctx.state->responses().answer(id);
    if (!answer) return reply_error(res, not_kept(id), ErrorStyle::kOpenAi);
    reply_json(res, 200, *answer);
  });
  http.Delete("/v1/responses/([^/]+)", [ctx](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    if (!ctx.state->responses().erase(id)) return reply_error(res, not_kept(id), ErrorStyle::kOpenAi);
    reply_json(res, 200, {{"id", id}, {"object", "response"}, {"deleted", true}});
  });
}

}  // namespace strata::server
