#include "server/routes.h"

namespace strata::server {

const ServedModel* accepting_model(const RouteContext& ctx, httplib::Response& res,
                                   ErrorStyle style) {
  if (ctx.state->draining()) {
    reply_error(res, ApiError::Unavailable("shutting_down", "the server is shutting down"), style);
    return nullptr;
  }
  return ready_model(ctx, res, style);
}

const ServedModel* ready_model(const RouteContext& ctx, httplib::Response& res, ErrorStyle style) {
  const ServedModel* model = ctx.state->model();
  if (!model) {
    reply_error(res, ApiError::Unavailable("model_loading", "the model is still loading; retry shortly"),
                style);
  }
  return model;
}

}  // namespace strata::server
