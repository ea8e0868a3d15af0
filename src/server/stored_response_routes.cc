// GET and DELETE /v1/responses/{id}: the answers the Responses API kept (ResponseStore), as
// OpenAI's client.responses.retrieve() and .delete() ask for them; GET
// /v1/responses/{id}/input_items: their requests' input items, as .inputItems.list() pages them.
#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "server/routes.h"

namespace strata::server {
namespace {

ApiError not_kept(const std::string& id) {
  return ApiError::NotFound("no response with id '" + id +
                            "' is kept here (answered with store: false, evicted, deleted, or by another "
                            "server or before a restart)");
}

// One page of input items: `limit` (1 to 100, default 20) of them in `order` ("desc", the
// default: the last first; or "asc") after the item `after`, as OpenAI's list object.
Result<nlohmann::json> input_items_page(const nlohmann::json& items, const httplib::Request& req) {
  int limit = 20;
  if (req.has_param("limit")) {
    const std::string v = req.get_param_value("limit");
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), limit);
    if (ec != std::errc() || end != v.data() + v.size() || limit < 1 || limit > 100) {
      return Status::InvalidArgument("'limit' must be an integer from 1 to 100, got '" + v + "'");
    }
  }
  const std::string order = req.has_param("order") ? req.get_param_value("order") : "desc";
  if (order != "asc" && order != "desc") return Status::InvalidArgument("'order' must be asc or desc, got '" + order + "'");
  std::vector<const nlohmann::json*> ordered;
  for (const nlohmann::json& item : items) ordered.push_back(&item);
  if (order == "desc") std::reverse(ordered.begin(), ordered.end());
  size_t first = 0;
  if (req.has_param("after")) {
    const std::string after = req.get_param_value("after");
    auto it = std::find_if(ordered.begin(), ordered.end(), [&](const nlohmann::json* item) {
      return item->is_object() && item->value("id", "") == after;
    });
    if (it == ordered.end()) return Status::InvalidArgument("'after': this response has no input item '" + after + "'");
    first = static_cast<size_t>(it - ordered.begin()) + 1;
  }
  nlohmann::json data = nlohmann::json::array();
  for (size_t i = first; i < ordered.size() && data.size() < static_cast<size_t>(limit); ++i) data.push_back(*ordered[i]);
  const bool has_more = first + data.size() < ordered.size();
  nlohmann::json page = {{"object", "list"}, {"data", data}, {"has_more", has_more}};
  page["first_id"] = data.empty() ? nlohmann::json() : data.front().value("id", nlohmann::json());
  page["last_id"] = data.empty() ? nlohmann::json() : data.back().value("id", nlohmann::json());
  return page;
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
  http.Get("/v1/responses/([^/]+)/input_items", [ctx](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    std::optional<nlohmann::json> items = ctx.state->responses().input_items(id);
    if (!items) return reply_error(res, not_kept(id), ErrorStyle::kOpenAi);
    Result<nlohmann::json> page = input_items_page(*items, req);
    if (!page.ok()) return reply_error(res, api_error_from_status(page.status()), ErrorStyle::kOpenAi);
    reply_json(res, 200, *page);
  });
  http.Delete("/v1/responses/([^/]+)", [ctx](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    if (!ctx.state->responses().erase(id)) return reply_error(res, not_kept(id), ErrorStyle::kOpenAi);
    reply_json(res, 200, {{"id", id}, {"object", "response"}, {"deleted", true}});
  });
}

}  // namespace strata::server
