#include "server/sse.h"

namespace strata::server {

std::string sse_data_frame(std::string_view payload) {
  std::string frame;
  frame.reserve(payload.size() + 8);
  frame.append("data: ").append(payload).append("\n\n");
  return frame;
}

std::string sse_event_frame(std::string_view name, std::string_view payload) {
  std::string frame;
  frame.reserve(name.size() + payload.size() + 16);
  frame.append("event: ").append(name).append("\ndata: ").append(payload).append("\n\n");
  return frame;
}

std::string sse_comment_frame(std::string_view text) {
  std::string frame;
  frame.append(": ").append(text).append("\n\n");
  return frame;
}

std::string dump_json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string dump_json(const nlohmann::ordered_json& value) {
  return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

bool SseWriter::write(const std::string& frame) {
  if (!ok_) return false;
  ok_ = write_(frame);
  return ok_;
}

bool SseWriter::data(const nlohmann::json& payload) { return write(sse_data_frame(dump_json(payload))); }

bool SseWriter::event(std::string_view name, const nlohmann::json& payload) {
  return write(sse_event_frame(name, dump_json(payload)));
}

bool SseWriter::done() { return write(sse_data_frame("[DONE]")); }

bool SseWriter::keep_alive() { return write(sse_comment_frame("keep-alive")); }

}  // namespace strata::server
