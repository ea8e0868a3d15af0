#include "server/openai_stream.h"

#include <utility>

#include "server/api_error.h"
#include "server/json_body_renderer.h"

namespace strata::server {

using nlohmann::json;

OpenAiStreamRenderer::OpenAiStreamRenderer(SseWriter::WriteFn write, ResponseMeta meta,
                                           const ModelText& text, OpenAiStreamOptions options)
    : sse_(std::move(write)), meta_(std::move(meta)), text_(text), options_(options) {}

bool OpenAiStreamRenderer::send_chunk(json chunk) {
  if (options_.include_usage) chunk["usage"] = nullptr;
  return sse_.data(chunk);
}

bool OpenAiStreamRenderer::start() {
  if (!options_.chat) return true;
  return send_chunk(chat_chunk_json(meta_, {{"role", "assistant"}, {"content", ""}}, nullptr, nullptr));
}

bool OpenAiStreamRenderer::send_text(const std::string& text, const TokenLogprobs* logprobs,
                                     const char* finish) {
  json lp = nullptr;
  if (logprobs) {
    std::vector<TokenLogprobs> one{*logprobs};
    lp = options_.chat ? chat_logprobs_json(one, text_) : text_logprobs_json(one, text_, text_bytes_);
  }
  text_bytes_ += text.size();
  if (options_.chat) {
    json delta = finish && text.empty() ? json::object() : json{{"content", text}};
    return send_chunk(chat_chunk_json(meta_, std::move(delta), std::move(lp), finish));
  }
  return send_chunk(text_chunk_json(meta_, text, std::move(lp), finish));
}

bool OpenAiStreamRenderer::token(const RequestEvent& event) {
  // Bytes of a partial UTF-8 character are held back by the engine; say nothing until they
  // complete unless the client wants every token's logprob.
  if (event.text.empty() && !options_.logprobs) return true;
  if (!options_.logprobs) return send_text(event.text, nullptr, nullptr);
  TokenLogprobs lp{event.token, event.logprob, event.top_logprobs};
  return send_text(event.text, &lp, nullptr);
}

bool OpenAiStreamRenderer::finish(const RequestEvent& event) {
  if (!finished_normally(event)) {
    return sse_.data(openai_error_body(error_for_unfinished(event)));
  }
  if (!send_text(event.text, nullptr, openai_finish_reason(event.finish))) return false;
  if (options_.include_usage) {
    const Usage usage = usage_of(event);
    json chunk = options_.chat ? chat_usage_chunk_json(meta_, usage) : text_usage_chunk_json(meta_, usage);
    if (!sse_.data(chunk)) return false;
  }
  return sse_.done();
}

}  // namespace strata::server
