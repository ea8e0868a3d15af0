#include "server/openai_stream.h"

#include <utility>

#include "server/api_error.h"
#include "server/json_body_renderer.h"
#include "server/output_tail.h"

namespace strata::server {

using nlohmann::json;

OpenAiStreamRenderer::Choice::Choice(int index, const OpenAiStreamOptions& options)
    : index(index), tool_parser(options.tool_format), splitter(options.reasoning, options.parse_tool_calls) {}

OpenAiStreamRenderer::OpenAiStreamRenderer(SseWriter::WriteFn write, ResponseMeta meta,
                                           const ModelText& text, OpenAiStreamOptions options, int n_choices)
    : sse_(std::move(write)), meta_(std::move(meta)), text_(text), options_(options) {
  choices_.reserve(static_cast<size_t>(n_choices));
  for (int c = 0; c < n_choices; ++c) choices_.push_back(std::make_unique<Choice>(c, options_));
}

bool OpenAiStreamRenderer::send_chunk(json chunk) {
  if (options_.include_usage) chunk["usage"] = nullptr;
  return sse_.data(chunk);
}

bool OpenAiStreamRenderer::start() {
  if (!options_.chat) return true;
  for (const auto& c : choices_) {
    if (!send_chunk(chat_chunk_json(meta_, c->index, {{"role", "assistant"}, {"content", ""}}, nullptr, nullptr))) {
      return false;
    }
  }
  return true;
}

bool OpenAiStreamRenderer::send_text(Choice& c, const std::string& text, const TokenLogprobs* logprobs,
                                     const char* finish) {
  json lp = nullptr;
  if (logprobs) {
    std::vector<TokenLogprobs> one{*logprobs};
    lp = options_.chat ? chat_logprobs_json(one, text_) : text_logprobs_json(one, text_, c.text_bytes);
  }
  c.text_bytes += text.size();
  if (options_.chat) {
    json delta = finish && text.empty() ? json::object() : json{{"content", text}};
    return send_chunk(chat_chunk_json(meta_, c.index, std::move(delta), std::move(lp), finish));
  }
  return send_chunk(text_chunk_json(meta_, c.index, text, std::move(lp), finish));
}

bool OpenAiStreamRenderer::send_pieces(Choice& c, const std::vector<ToolCallPiece>& pieces,
                                       const TokenLogprobs* logprobs) {
  for (const ToolCallPiece& piece : pieces) {
    if (!piece.is_call) {
      if (!send_text(c, piece.text, std::exchange(logprobs, nullptr), nullptr)) return false;
      continue;
    }
    json call = openai_tool_call_json(meta_, piece.call, c.index, c.n_calls_sent++, /*with_index=*/true);
    json delta = {{"tool_calls", json::array({std::move(call)})}};
    if (!send_chunk(chat_chunk_json(meta_, c.index, std::move(delta), nullptr, nullptr))) return false;
  }
  // A token whose text is held back still reports its logprob, with empty content.
  return !logprobs || send_text(c, "", logprobs, nullptr);
}

bool OpenAiStreamRenderer::send_content(Choice& c, const std::string& text, const TokenLogprobs* logprobs) {
  if (options_.parse_tool_calls) return send_pieces(c, c.tool_parser.feed(text), logprobs);
  if (text.empty() && !logprobs) return true;
  return send_text(c, text, logprobs, nullptr);
}

bool OpenAiStreamRenderer::send_answer(Choice& c, const ReasoningPiece& piece, const TokenLogprobs* logprobs) {
  if (!piece.call) return send_content(c, piece.text, logprobs);
  return send_pieces(c, c.tool_parser.feed_call(piece.text, *piece.call), logprobs);
}

bool OpenAiStreamRenderer::send_reasoning(Choice& c, const std::string& text, const TokenLogprobs* logprobs) {
  json lp = logprobs ? chat_logprobs_json({*logprobs}, text_) : json();
  return send_chunk(chat_chunk_json(meta_, c.index, {{"reasoning_content", text}}, std::move(lp), nullptr));
}

bool OpenAiStreamRenderer::send_output(Choice& c, const std::string& text, const TokenLogprobs* logprobs) {
  if (!options_.reasoning.split) return send_content(c, text, logprobs);
  for (const ReasoningPiece& piece : c.splitter.feed(text)) {
    const TokenLogprobs* lp = std::exchange(logprobs, nullptr);
    if (!(piece.reasoning ? send_reasoning(c, piece.text, lp) : send_answer(c, piece, lp))) return false;
  }
  // A token whose text is held back still reports its logprob, with empty content.
  return !logprobs || send_text(c, "", logprobs, nullptr);
}

bool OpenAiStreamRenderer::token(int choice, const RequestEvent& event) {
  if (failed_) return true;
  // Bytes of a partial UTF-8 character are held back by the engine; say nothing until they
  // complete unless the client wants every token's logprob.
  if (event.text.empty() && !options_.logprobs) return true;
  TokenLogprobs lp{event.token, event.logprob, event.top_logprobs};
  return send_output(*choices_[choice], event.text, options_.logprobs ? &lp : nullptr);
}

bool OpenAiStreamRenderer::finish_choice(Choice& c, const RequestEvent& event) {
  OutputTail tail = finish_output(event.text, options_.reasoning.split, c.splitter, options_.parse_tool_calls,
                                  c.tool_parser);
  for (const std::string& reasoning : tail.reasoning) {
    if (!send_reasoning(c, reasoning, nullptr)) return false;
  }
  c.usage = usage_of(event);
  c.usage.reasoning_tokens = c.splitter.reasoning_tokens();
  if (!options_.parse_tool_calls) return send_text(c, tail.text, nullptr, openai_finish_reason(event.finish));
  if (!send_pieces(c, tail.answer, nullptr)) return false;
  const char* finish = c.n_calls_sent > 0 ? "tool_calls" : openai_finish_reason(event.finish);
  return send_text(c, "", nullptr, finish);
}

bool OpenAiStreamRenderer::finish(int choice, const RequestEvent& event) {
  if (failed_) return true;
  if (!finished_normally(event)) {
    failed_ = true;
    return sse_.data(openai_error_body(error_for_unfinished(event)));
  }
  if (!finish_choice(*choices_[choice], event)) return false;
  if (++n_finished_ < static_cast<int>(choices_.size())) return true;
  if (options_.include_usage) {
    std::vector<Usage> usages;
    for (const auto& c : choices_) usages.push_back(c->usage);
    const Usage usage = choices_usage(usages);
    json chunk = options_.chat ? chat_usage_chunk_json(meta_, usage) : text_usage_chunk_json(meta_, usage);
    if (!sse_.data(chunk)) return false;
  }
  return sse_.done();
}

}  // namespace strata::server
