// The generation endpoints: parse, build the engine request, submit, then stream or collect
// the answer through the renderer for the API that was called.
#include <memory>
#include <utility>

#include "base/clock.h"
#include "server/anthropic_request.h"
#include "server/anthropic_response.h"
#include "server/anthropic_stream.h"
#include "server/generation_pump.h"
#include "server/json_body_renderer.h"
#include "server/json_fields.h"
#include "server/openai_request.h"
#include "server/openai_stream.h"
#include "server/prompt_builder.h"
#include "server/reasoning_splitter.h"
#include "server/responses_request.h"
#include "server/responses_response.h"
#include "server/responses_stream.h"
#include "server/routes.h"

namespace strata::server {

namespace {

enum class Api { kChat, kText, kAnthropic, kResponses };

using RendererFactory = std::function<std::unique_ptr<ResponseRenderer>(SseWriter::WriteFn)>;

// The request, and what a Responses API answer repeats of it (ResponsesRequest::echo); a
// previous_response_id is looked up in store.
Result<ResponsesRequest> parse_request(Api api, const std::string& body, ResponseStore& store) {
  STRATA_ASSIGN_OR_RETURN(RequestJson object, parse_json_object(body));
  if (api == Api::kResponses) {
    return parse_responses_request(object, [&store](const std::string& id) { return store.get(id); });
  }
  Result<CompletionRequest> completion = api == Api::kChat ? parse_chat_completion_request(object)
                                         : api == Api::kText ? parse_text_completion_request(object)
                                                             : parse_anthropic_messages_request(object);
  if (!completion.ok()) return completion.status();
  ResponsesRequest out;
  out.completion = std::move(completion).value();
  return out;
}

const char* id_prefix(Api api) {
  switch (api) {
    case Api::kChat: return "chatcmpl-";
    case Api::kText: return "cmpl-";
    case Api::kAnthropic: return "msg_";
    case Api::kResponses: return "resp_";
  }
  return "";
}

RendererFactory openai_renderers(Api api, const CompletionRequest& request, ResponseMeta meta,
                                 const ModelText& text) {
  const bool chat = api == Api::kChat;
  const bool logprobs = request.generate.sampling.logprobs;
  const bool tools = chat && request.parse_tool_calls;
  const ReasoningMode reasoning{chat && request.split_reasoning, request.reasoning_starts_open,
                                request.reasoning_harmony, request.reasoning_starts_closed, request.reasoning_tags,
                                request.reasoning_calls_end};
  const int n_choices = request.n_choices;
  if (request.stream) {
    OpenAiStreamOptions options{chat, logprobs, request.include_usage, tools, request.tool_format, reasoning};
    return [meta, &text, options, n_choices](SseWriter::WriteFn write) -> std::unique_ptr<ResponseRenderer> {
      return std::make_unique<OpenAiStreamRenderer>(std::move(write), meta, text, options, n_choices);
    };
  }
  const ChatAnswerOptions answer{logprobs, tools, reasoning, request.tool_format};
  return [meta, &text, chat, answer, n_choices](SseWriter::WriteFn write) -> std::unique_ptr<ResponseRenderer> {
    auto build = [meta, &text, chat, answer](const std::vector<GenerationResult>& results) {
      return dump_json(chat ? chat_completion_json(meta, results, answer, text)
                            : text_completion_json(meta, results, answer.logprobs, text));
    };
    return std::make_unique<JsonBodyRenderer>(std::move(write), n_choices, answer.logprobs, build, openai_error_body);
  };
}

RendererFactory anthropic_renderers(const CompletionRequest& request, ResponseMeta meta,
                                    const ModelText& text, int n_prompt) {
  std::vector<std::string> stops = request.generate.stop;
  const bool tools = request.parse_tool_calls;
  const ReasoningMode reasoning{request.split_reasoning, request.reasoning_starts_open, request.reasoning_harmony,
                                request.reasoning_starts_closed, request.reasoning_tags, request.reasoning_calls_end};
  const ToolCallFormat format = request.tool_format;
  if (request.stream) {
    return [meta, &text, n_prompt, stops, tools, reasoning, format](SseWriter::WriteFn write) -> std::unique_ptr<ResponseRenderer> {
      return std::make_unique<AnthropicStreamRenderer>(std::move(write), meta, text, n_prompt, stops, tools,
                                                       reasoning, format);
    };
  }
  return [meta, &text, stops, tools, reasoning, format](SseWriter::WriteFn write) -> std::unique_ptr<ResponseRenderer> {
    auto build = [meta, &text, stops, tools, reasoning, format](const std::vector<GenerationResult>& results) {
      const GenerationResult& result = results.front();
      return dump_json(anthropic_message_json(meta, result, matched_stop_sequence(result, stops, text), tools,
                                              reasoning, format));
    };
    return std::make_unique<JsonBodyRenderer>(std::move(write), 1, false, build, anthropic_error_body);
  };
}

// The answer is stored for a later previous_response_id (with request.store) once it is complete.
RendererFactory responses_renderers(const ResponsesRequest& parsed, ResponseMeta meta, ResponseStore* store) {
  const CompletionRequest& request = parsed.completion;
  const nlohmann::json echo = parsed.echo;
  auto keep = [store, conversation = parsed.conversation, items = parsed.input_items, id = meta.id,
               wanted = parsed.store](const nlohmann::json& answer) {
    if (!wanted || answer.value("status", "") == "failed") return;
    RequestJson turns = conversation;
    turns.push_back(assistant_turn_json(answer["output"]));
    store->put(id, std::move(turns), answer, name_input_items(items, id));
  };
  const bool tools = request.parse_tool_calls;
  const ReasoningMode reasoning{request.split_reasoning, request.reasoning_starts_open, request.reasoning_harmony,
                                request.reasoning_starts_closed, request.reasoning_tags, request.reasoning_calls_end};
  const ToolCallFormat format = request.tool_format;
  if (request.stream) {
    return [meta, echo, tools, reasoning, format, keep](SseWriter::WriteFn write) -> std::unique_ptr<ResponseRenderer> {
      return std::make_unique<ResponsesStreamRenderer>(std::move(write), meta, echo, tools, reasoning, format, keep);
    };
  }
  return [meta, echo, tools, reasoning, format, keep](SseWriter::WriteFn write) -> std::unique_ptr<ResponseRenderer> {
    auto build = [meta, echo, tools, reasoning, format, keep](const std::vector<GenerationResult>& results) {
      nlohmann::json answer = responses_answer_json(meta, echo, results.front(), tools, reasoning, format);
      keep(answer);
      return dump_json(answer);
    };
    return std::make_unique<JsonBodyRenderer>(std::move(write), 1, false, build, openai_error_body);
  };
}

// Hands the response to httplib as a chunked body produced on this worker thread: the pump
// runs inside the content provider, where the connection can be watched.
// The ticket goes with the provider, so it is released once the answer is written or dropped.
void start_response(httplib::Response& res, std::shared_ptr<GenerationSession> session,
                    RendererFactory make_renderer, bool stream, PumpTiming timing,
                    std::shared_ptr<AnswerTicket> ticket) {
  if (stream) {
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");  // keep reverse proxies from buffering the stream
  }
  res.set_chunked_content_provider(
      stream ? "text/event-stream" : "application/json",
      [session, make_renderer, timing, ticket](size_t, httplib::DataSink& sink) {
        auto write = [&sink](std::string_view bytes) { return sink.write(bytes.data(), bytes.size()); };
        auto alive = [&sink] { return sink.is_writable(); };
        std::unique_ptr<ResponseRenderer> renderer = make_renderer(write);
        if (!pump_generation(*session, *renderer, alive, timing)) return false;
        sink.done();
        return true;
      });
}

// One engine request per choice (OpenAI's n): choice c samples with the request's seed + c, so
// it is the answer a request for one choice with that seed gets.
std::vector<GenerateRequest> choice_requests(GenerateRequest request, int n_choices) {
  request.n = n_choices;
  std::vector<GenerateRequest> out(static_cast<size_t>(n_choices), request);
  for (int c = 0; c < n_choices; ++c) {
    out[c].choice = c;
    out[c].sampling.seed = request.sampling.seed + static_cast<uint64_t>(c);
  }
  return out;
}

// Thinking models' chat answers (and harmony models': gpt-oss) are split into reasoning and
// content unless the server runs with --reasoning-format none; a prompt that ends inside
// "<think>" ("[THINK]", an analysis message) starts the output in reasoning.
void set_reasoning_mode(const ServerConfig& config, const ServedModel& model, Api api,
                        const std::vector<int32_t>& prompt, CompletionRequest* request) {
  if (api == Api::kText || config.reasoning_format == "none") return;
  const ReasoningMode mode = chat_reasoning_mode(*model.text, prompt);
  request->split_reasoning = mode.split;
  request->reasoning_harmony = mode.harmony;
  request->reasoning_starts_open = mode.starts_open;
  request->reasoning_starts_closed = mode.starts_closed;
  request->reasoning_tags = mode.tags;
  request->reasoning_calls_end = mode.calls_end_reasoning;
}

void serve_generation(const RouteContext& ctx, Api api, const httplib::Request& req,
                      httplib::Response& res) {
  const ErrorStyle style = api == Api::kAnthropic ? ErrorStyle::kAnthropic : ErrorStyle::kOpenAi;
  // Taken before the draining check: a drain that begins after it waits for this answer.
  auto ticket = std::make_shared<AnswerTicket>(ctx.state->hold_answer());
  const ServedModel* model = accepting_model(ctx, res, style);
  if (!model) return;
  Result<ResponsesRequest> parsed = parse_request(api, req.body, ctx.state->responses());
  if (!parsed.ok()) return reply_error(res, api_error_from_status(parsed.status()), style);
  CompletionRequest* request = &parsed->completion;
  Result<GenerateRequest> generate =
      build_generate_request(*request, *model->text, model->n_ctx, ctx.state->fresh_seed());
  if (!generate.ok()) return reply_error(res, api_error_from_status(generate.status()), style);
  const int n_prompt = static_cast<int>(generate->prompt_tokens.size());
  set_reasoning_mode(ctx.state->config(), *model, api, generate->prompt_tokens, &*request);
  request->tool_format = ToolCallFormat(model->text->tool_call_syntax(), ToolParamTypes(request->prompt.tools));
  auto session = GenerationSession::Start(*model->engine, choice_requests(std::move(generate).value(), request->n_choices));
  if (!session.ok()) return reply_error(res, api_error_from_status(session.status()), style);

  ResponseMeta meta{ctx.state->new_id(id_prefix(api)), static_cast<int64_t>(wall_s()), model->name};
  RendererFactory factory =
      api == Api::kAnthropic   ? anthropic_renderers(*request, meta, *model->text, n_prompt)
      : api == Api::kResponses ? responses_renderers(*parsed, meta, &ctx.state->responses())
                               : openai_renderers(api, *request, meta, *model->text);
  const ServerConfig& config = ctx.state->config();
  start_response(res, std::shared_ptr<GenerationSession>(std::move(session).value()),
                 std::move(factory), request->stream, PumpTiming{config.poll_s, config.keep_alive_s},
                 std::move(ticket));
}

// Anthropic's token counting endpoint: the prompt as it would be sent, counted.
void serve_count_tokens(const RouteContext& ctx, const httplib::Request& req, httplib::Response& res) {
  const ServedModel* model = ready_model(ctx, res, ErrorStyle::kAnthropic);
  if (!model) return;
  Result<RequestJson> body = parse_json_object(req.body);
  if (!body.ok()) return reply_error(res, api_error_from_status(body.status()), ErrorStyle::kAnthropic);
  // count_tokens has no max_tokens; reuse the Messages parser with a placeholder.
  if (!body->contains("max_tokens")) (*body)["max_tokens"] = 1;
  Result<CompletionRequest> request = parse_anthropic_messages_request(*body);
  if (!request.ok()) {
    return reply_error(res, api_error_from_status(request.status()), ErrorStyle::kAnthropic);
  }
  Result<std::vector<int32_t>> tokens = model->text->chat_prompt(request->prompt);
  if (!tokens.ok()) {
    return reply_error(res, api_error_from_status(tokens.status()), ErrorStyle::kAnthropic);
  }
  reply_json(res, 200, {{"input_tokens", tokens->size()}});
}

}  // namespace

void add_generation_routes(httplib::Server& http, RouteContext ctx) {
  http.Post("/v1/chat/completions", [ctx](const httplib::Request& req, httplib::Response& res) {
    serve_generation(ctx, Api::kChat, req, res);
  });
  http.Post("/v1/completions", [ctx](const httplib::Request& req, httplib::Response& res) {
    serve_generation(ctx, Api::kText, req, res);
  });
  http.Post("/v1/responses", [ctx](const httplib::Request& req, httplib::Response& res) {
    serve_generation(ctx, Api::kResponses, req, res);
  });
  http.Post("/v1/messages", [ctx](const httplib::Request& req, httplib::Response& res) {
    serve_generation(ctx, Api::kAnthropic, req, res);
  });
  http.Post("/v1/messages/count_tokens", [ctx](const httplib::Request& req, httplib::Response& res) {
    serve_count_tokens(ctx, req, res);
  });
}

}  // namespace strata::server
