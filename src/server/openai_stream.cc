#include "server/openai_stream.h"

#include <utility>

#include "server/api_error.h"
#include "server/json_body_renderer.h"

namespace strata::server {

using nlohmann::json;

OpenAiStreamRenderer::OpenAiStreamRenderer(SseWriter::WriteFn write, ResponseMeta meta,
                                           const ModelText& text, OpenAiStreamOptions options)
    : sse_(std::move(write)),
      meta_(std::move(meta)),
      text_(text),
      options_(options),
      tool_parser_(options.tool_format),
      splitter_(options.reasoning, options.parse_tool_calls) {}

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

bool OpenAiStreamRenderer::send_pieces(const std::vector<ToolCallPiece>& pieces,
                                       const TokenLogprobs* logprobs) {
  for (const ToolCallPiece& piece : pieces) {
    if (!piece.is_call) {
      if (!send_text(piece.text, std::exchange(logprobs, nullptr), nullptr)) return false;
      continue;
    }
    json call = openai_tool_call_json(meta_, piece.call, n_calls_sent_++, /*with_index=*/true);
    json delta = {{"tool_calls", json::array({std::move(call)})}};
    if (!send_chunk(chat_chunk_json(meta_, std::move(delta), nullptr, nullptr))) return false;
  }
  // A token whose text is held back still reports its logprob, with empty content.
  return !logprobs || send_text("", logprobs, nullptr);
}

bool OpenAiStreamRenderer::send_content(const std::string& text, const TokenLogprobs* logprobs) {
  if (options_.parse_tool_calls) return send_pieces(tool_parser_.feed(text), logprobs);
  if (text.empty() && !logprobs) return true;
  return send_text(text, logprobs, nullptr);
}

bool OpenAiStreamRenderer::send_answer(const ReasoningPiece& piece, const TokenLogprobs* logprobs) {
  if (!piece.call) return send_content(piece.text, logprobs);
  return send_pieces(tool_parser_.feed_call(piece.text, *piece.call), logprobs);
}

bool OpenAiStreamRenderer::send_reasoning(const std::string& text, const TokenLogprobs* logprobs) {
  json lp = logprobs ? chat_logprobs_json({*logprobs}, text_) : json();
  return send_chunk(chat_chunk_json(meta_, {{"reasoning_content", text}}, std::move(lp), nullptr));
}

bool OpenAiStreamRenderer::send_output(const std::string& text, const TokenLogprobs* logprobs) {
  if (!options_.reasoning.split) return send_content(text, logprobs);
  for (const ReasoningPiece& piece : splitter_.feed(text)) {
    const TokenLogprobs* lp = std::exchange(logprobs, nullptr);
    if (!(piece.reasoning ? send_reasoning(piece.text, lp) : send_answer(piece, lp))) return false;
  }
  // A token whose text is held back still reports its logprob, with empty content.
  return !logprobs || send_text("", logprobs, nullptr);
}

bool OpenAiStreamRenderer::token(const RequestEvent& event) {
  // Bytes of a partial UTF-8 character are held back by the engine; say nothing until they
  // complete unless the client wants every token's logprob.
  if (event.text.empty() && !options_.logprobs) return true;
  TokenLogprobs lp{event.token, event.logprob, event.top_logprobs};
  return send_output(event.text, options_.logprobs ? &lp : nullptr);
}

bool OpenAiStreamRenderer::finish(const RequestEvent& event) {
  if (!finished_normally(event)) {
    return sse_.data(openai_error_body(error_for_unfinished(event)));
  }
  std::string tail = event.text;
  std::vector<ToolCallPiece> answer;  // tools: the calls (and the text before them) among the last pieces
  if (options_.reasoning.split) {
    // Reasoning still held goes out now; the content's tail goes on with the finish reason.
    tail.clear();
    std::vector<ReasoningPiece> pieces = splitter_.feed(event.text);
    for (ReasoningPiece& piece : splitter_.finish()) pieces.push_back(std::move(piece));
    for (ReasoningPiece& piece : pieces) {
      if (piece.reasoning) {
        if (!send_reasoning(piece.text, nullptr)) return false;
        continue;
      }
      tail += piece.text;
      if (!piece.call) continue;
      for (ToolCallPiece& parsed : tool_parser_.feed_call(std::exchange(tail, ""), std::move(*piece.call))) {
        answer.push_back(std::move(parsed));
      }
    }
  }
  if (options_.parse_tool_calls) {
    for (ToolCallPiece& piece : tool_parser_.feed(tail)) answer.push_back(std::move(piece));
    for (ToolCallPiece& piece : tool_parser_.finish()) answer.push_back(std::move(piece));
    if (!send_pieces(answer, nullptr)) return false;
    const char* finish = n_calls_sent_ > 0 ? "tool_calls" : openai_finish_reason(event.finish);
    if (!send_text("", nullptr, finish)) return false;
  } else if (!send_text(tail, nullptr, openai_finish_reason(event.finish))) {
    return false;
  }
  if (options_.include_usage) {
    Usage usage = usage_of(event);
    usage.reasoning_tokens = splitter_.reasoning_tokens();
    json chunk = options_.chat ? chat_usage_chunk_json(meta_, usage) : text_usage_chunk_json(meta_, usage);
    if (!sse_.data(chunk)) return false;
  }
  return sse_.done();
}

}  // namespace strata::server
