// Server-Sent Events framing (text/event-stream) and a writer over a byte sink.
//
// Frame builders are pure functions. SseWriter is owned by one HTTP thread; it remembers the
// first failed write (the client left) and writes nothing after it.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace strata::server {

// "data: <payload>\n\n". payload must hold no newline (compact JSON never does).
std::string sse_data_frame(std::string_view payload);
// "event: <name>\ndata: <payload>\n\n" (Anthropic's named events).
std::string sse_event_frame(std::string_view name, std::string_view payload);
// ": <text>\n\n" — a comment line; clients ignore it, proxies see traffic.
std::string sse_comment_frame(std::string_view text);

class SseWriter {
 public:
  using WriteFn = std::function<bool(std::string_view bytes)>;
  explicit SseWriter(WriteFn write) : write_(std::move(write)) {}

  bool data(const nlohmann::json& payload);
  bool event(std::string_view name, const nlohmann::json& payload);
  bool done();        // "data: [DONE]" (OpenAI's end of stream)
  bool keep_alive();  // ": keep-alive"
  bool ok() const { return ok_; }

 private:
  bool write(const std::string& frame);

  WriteFn write_;
  bool ok_ = true;
};

// Compact JSON with invalid UTF-8 replaced (U+FFFD) rather than throwing.
std::string dump_json(const nlohmann::json& value);
std::string dump_json(const nlohmann::ordered_json& value);

}  // namespace strata::server
