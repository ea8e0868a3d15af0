#include "server/tool_call_parser.h"

#include "server/request_json.h"
#include "server/tool_call_arg_tags.h"
#include "server/tool_call_cohere.h"
#include "server/tool_call_deepseek.h"
#include "server/tool_call_gemma4.h"
#include "server/tool_call_hunyuan.h"
#include "server/tool_call_lfm2.h"
#include "server/tool_call_minimax.h"
#include "server/tool_call_nemotron.h"
#include "server/tool_call_xml.h"
#include "server/tool_call_kimi.h"
#include "server/tool_call_mistral.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <utility>

namespace strata::server {

namespace {

// Ordered: a call's arguments keep the order the model wrote them in (a schema's order under a
// forced call), as the other formats' parsers keep it; parse_ordered_json reads a model's
// output in linear time (a null value when it is not JSON).
using CallJson = RequestJson;

constexpr std::string_view kOpenTag = "<tool_call>";
constexpr std::string_view kCloseTag = "</tool_call>";
constexpr std::string_view kSpace = " \t\r\n";
// What Llama 3.1 and Mistral write before a bare-JSON call when their special tokens are
// rendered as text.
constexpr std::string_view kBareCallTags[] = {"<|python_tag|>", "[TOOL_CALLS]"};

bool all_space(std::string_view text) { return text.find_first_not_of(kSpace) == std::string_view::npos; }

std::string_view trim_space(std::string_view text) {
  size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  size_t last = text.find_last_not_of(kSpace);
  return text.substr(first, last - first + 1);
}

// {"name": "...", "arguments" | "parameters": {...} or a string}. A string holding a JSON object
// is unwrapped; any other string is kept as the call's raw arguments.
bool parse_call(std::string_view body, ParsedToolCall* out) {
  CallJson call = parse_ordered_json(trim_space(body)).value;
  if (!call.is_object()) return false;
  auto name = call.find("name");
  if (name == call.end() || !name->is_string() || name->get<std::string>().empty()) return false;
  CallJson arguments = CallJson::object();
  auto args = call.find("arguments");
  if (args == call.end()) args = call.find("parameters");
  if (args != call.end() && !args->is_null()) {
    arguments = args->is_string()
                    ? parse_ordered_json(args->get<std::string>()).value
                    : *args;
  }
  const bool raw = args != call.end() && args->is_string() && !arguments.is_object();
  if (!arguments.is_object() && !raw) return false;
  auto id = call.find("id");  // Mistral Nemo writes its call's id
  out->id = id != call.end() && id->is_string() ? id->get<std::string>() : "";
  out->name = name->get<std::string>();
  out->arguments_raw = raw;
  out->arguments_json = raw ? args->get<std::string>() : arguments.dump(-1, ' ', false, CallJson::error_handler_t::replace);
  return true;
}

// A whole bare-JSON output: one call object, or a non-empty array of call objects.
bool parse_bare_calls(std::string_view body, std::vector<ParsedToolCall>* out) {
  std::string_view text = trim_space(body);
  if (text.empty() || text.front() != '[') {
    ParsedToolCall call;
    if (!parse_call(text, &call)) return false;
    out->push_back(std::move(call));
    return true;
  }
  CallJson calls = parse_ordered_json(text).value;
  if (!calls.is_array() || calls.empty()) return false;
  for (const CallJson& item : calls) {
    ParsedToolCall call;
    if (!item.is_object() || !parse_call(item.dump(), &call)) return false;
    out->push_back(std::move(call));
  }
  return true;
}

// How many bytes at the end of text could be the beginning of tag.
size_t partial_tag_length(std::string_view text, std::string_view tag) {
  for (size_t n = std::min(text.size(), tag.size() - 1); n > 0; --n) {
    if (text.substr(text.size() - n) == tag.substr(0, n)) return n;
  }
  return 0;
}

// A <tool_call> block's body as its calls: in kArgTags GLM's arg tags, in kXmlParams one or more
// functions, else (or failing that) one JSON call, what forced calls are constrained to write in
// every syntax.
bool parse_tool_call_block(std::string_view body, const ToolCallFormat& format, std::vector<ParsedToolCall>* out) {
  if (format.syntax == ToolCallSyntax::kXmlParams && parse_xml_function_calls(body, format.param_types, out)) {
    return true;
  }
  ParsedToolCall call;
  const bool arg_tags = format.syntax == ToolCallSyntax::kArgTags && parse_arg_tag_call(body, &call);
  if (!arg_tags && !parse_call(body, &call)) return false;
  out->push_back(std::move(call));
  return true;
}

}  // namespace

std::vector<ToolCallParser::BlockMarkup> ToolCallParser::block_markups(ToolCallSyntax syntax) {
  std::vector<BlockMarkup> blocks = {{kOpenTag, kCloseTag, BlockKind::kToolCallTag}};
  if (is_deepseek_syntax(syntax)) {
    for (std::string_view opener : kDeepSeekCallsOpeners) {
      blocks.push_back({opener, kDeepSeekCallsCloser, BlockKind::kDeepSeekSection});
    }
  }
  if (syntax == ToolCallSyntax::kXmlParams) {
    blocks.push_back({kSeedCallOpener, kSeedCallCloser, BlockKind::kToolCallTag});  // read as <tool_call>
    blocks.push_back({kXmlFunctionOpener, kXmlFunctionCloser, BlockKind::kXmlFunction});
  }
  if (syntax == ToolCallSyntax::kMistral) blocks.push_back({kMistralCallsOpener, "", BlockKind::kMistralCalls});
  if (syntax == ToolCallSyntax::kKimiK2) {
    blocks.push_back({kKimiCallsOpener, kKimiCallsCloser, BlockKind::kKimiSection});
    blocks.push_back({kKimiCallBegin, kKimiCallEnd, BlockKind::kKimiCall});
  }
  if (syntax == ToolCallSyntax::kMiniMaxM2) {
    blocks.push_back({kMiniMaxCallsOpener, kMiniMaxCallsCloser, BlockKind::kMiniMaxCalls});
  }
  if (syntax == ToolCallSyntax::kGemma4) blocks.push_back({kGemma4CallOpener, kGemma4CallCloser, BlockKind::kGemma4Call});
  if (syntax == ToolCallSyntax::kCohere) {
    blocks.push_back({kCohereActionOpener, kCohereActionCloser, BlockKind::kCohereAction});
  }
  if (syntax == ToolCallSyntax::kNemotron) {
    blocks.push_back({kNemotronCallsOpener, kNemotronCallsCloser, BlockKind::kNemotronCalls});
  }
  if (syntax == ToolCallSyntax::kLfm2) blocks.push_back({kLfm2CallsOpener, kLfm2CallsCloser, BlockKind::kLfm2Calls});
  if (syntax == ToolCallSyntax::kHunyuan) {  // Nemotron's JSON array between Hunyuan's tags
    blocks.push_back({kHunyuanCallsOpener, kHunyuanCallsCloser, BlockKind::kNemotronCalls});
  }
  return blocks;
}

bool ToolCallParser::parse_block(BlockKind kind, std::string_view body, const ToolCallFormat& format,
                                 std::vector<ParsedToolCall>* out) {
  switch (kind) {
    case BlockKind::kToolCallTag: return parse_tool_call_block(body, format, out);
    case BlockKind::kDeepSeekSection: return parse_deepseek_calls(body, format.syntax, out);
    case BlockKind::kXmlFunction:
      return parse_xml_function_calls(std::string(kXmlFunctionOpener) + std::string(body) +
                                          std::string(kXmlFunctionCloser),
                                      format.param_types, out);
    case BlockKind::kMistralCalls: return false;  // read by close_mistral_call() as it arrives
    case BlockKind::kKimiSection: return parse_kimi_calls(body, out);
    case BlockKind::kKimiCall: return parse_kimi_lone_call(body, out);
    case BlockKind::kMiniMaxCalls: return parse_minimax_invokes(body, format.param_types, out);
    case BlockKind::kCohereAction: return parse_cohere_action(body, out);
    case BlockKind::kNemotronCalls: return parse_nemotron_calls(body, out);
    case BlockKind::kLfm2Calls: return parse_lfm2_calls(body, out);
    case BlockKind::kGemma4Call: {
      ParsedToolCall call;
      if (!parse_gemma4_call(body, &call)) return false;
      out->push_back(std::move(call));
      return true;
    }
  }
  return false;
}

void ToolCallParser::emit_text(std::string text, std::vector<ToolCallPiece>* out) {
  if (text.empty()) return;
  if (all_space(text)) {
    held_space_ += text;
    return;
  }
  text = std::exchange(held_space_, "") + text;
  if (!out->empty() && !out->back().is_call) {
    out->back().text += text;
  } else {
    out->push_back({false, std::move(text), {}});
  }
}

void ToolCallParser::emit_call(ParsedToolCall call, std::vector<ToolCallPiece>* out) {
  ++n_calls_;
  out->push_back({true, "", std::move(call)});
}

ToolCallParser::ToolCallParser(ToolCallFormat format)
    : format_(std::move(format)), blocks_(block_markups(format_.syntax)) {}

bool ToolCallParser::close_mistral_call(std::vector<ToolCallPiece>* out) {
  std::vector<ParsedToolCall> calls;
  size_t consumed = 0;
  const MistralCallScan scan = scan_mistral_call(pending_, &calls, &consumed);
  if (scan == MistralCallScan::kNeedMore) return false;
  in_block_ = false;
  if (scan == MistralCallScan::kNotACall) {
    emit_text(std::string(block_.opener), out);  // what followed it is read again as text
    return true;
  }
  pending_.erase(0, consumed);
  for (ParsedToolCall& call : calls) emit_call(std::move(call), out);
  return true;
}

bool ToolCallParser::close_block(std::vector<ToolCallPiece>* out) {
  if (block_.kind == BlockKind::kMistralCalls) return close_mistral_call(out);
  const size_t at = pending_.find(block_.closer);
  if (at == std::string::npos) return false;
  const std::string body = pending_.substr(0, at);
  pending_.erase(0, at + block_.closer.size());
  in_block_ = false;
  std::vector<ParsedToolCall> calls;
  if (!parse_block(block_.kind, body, format_, &calls)) {
    emit_text(std::string(block_.opener) + body + std::string(block_.closer), out);
    return true;
  }
  for (ParsedToolCall& call : calls) emit_call(std::move(call), out);
  return true;
}

size_t ToolCallParser::find_opener(BlockMarkup* block) const {
  size_t first = std::string::npos;
  for (const BlockMarkup& candidate : blocks_) {
    const size_t at = pending_.find(candidate.opener);
    if (at < first) {
      first = at;
      *block = candidate;
    }
  }
  return first;
}

void ToolCallParser::drain(std::vector<ToolCallPiece>* out) {
  while (!bare_json_) {
    if (in_block_) {
      if (!close_block(out)) return;
      continue;
    }
    if (!started_ && format_.syntax == ToolCallSyntax::kJson) {
      size_t first = pending_.find_first_not_of(kSpace);
      if (first == std::string::npos) return;  // only whitespace so far: undecided
      const std::string_view rest = std::string_view(pending_).substr(first);
      for (std::string_view tag : kBareCallTags) {
        if (rest.size() < tag.size() && tag.substr(0, rest.size()) == rest) return;  // maybe a tag: undecided
        if (rest.substr(0, tag.size()) == tag) {
          bare_tag_ = pending_.substr(0, first + tag.size());
          pending_.erase(0, first + tag.size());
          started_ = bare_json_ = true;
          return;
        }
      }
      started_ = true;
      if (rest.front() == '{' || rest.front() == '[') {
        bare_json_ = true;
        return;
      }
    }
    BlockMarkup block;
    const size_t open = find_opener(&block);
    if (open == std::string::npos) {
      size_t keep = 0;
      for (const BlockMarkup& b : blocks_) keep = std::max(keep, partial_tag_length(pending_, b.opener));
      emit_text(pending_.substr(0, pending_.size() - keep), out);
      pending_.erase(0, pending_.size() - keep);
      return;
    }
    emit_text(pending_.substr(0, open), out);
    pending_.erase(0, open + block.opener.size());
    block_ = block;
    in_block_ = true;
  }
}

std::vector<ToolCallPiece> ToolCallParser::feed(std::string_view text) {
  std::vector<ToolCallPiece> out;
  pending_.append(text);
  drain(&out);
  return out;
}

std::vector<ToolCallPiece> ToolCallParser::feed_call(std::string_view text, ParsedToolCall call) {
  std::vector<ToolCallPiece> out;
  pending_.append(text);
  drain(&out);
  if (bare_json_) {
    // Bare JSON followed by another call is not bare calls: its bytes are text, read as such.
    pending_.insert(0, std::exchange(bare_tag_, ""));
    bare_json_ = false;
    drain(&out);
  }
  started_ = true;
  std::string rest = std::exchange(pending_, "");
  if (in_block_) rest.insert(0, block_.opener);
  in_block_ = false;
  emit_text(std::move(rest), &out);
  emit_call(std::move(call), &out);
  return out;
}

std::vector<ToolCallPiece> ToolCallParser::finish() {
  std::vector<ToolCallPiece> out;
  if (bare_json_) {
    std::vector<ParsedToolCall> calls;
    if (parse_bare_calls(pending_, &calls)) {
      for (ParsedToolCall& call : calls) emit_call(std::move(call), &out);
      pending_.clear();
    } else {
      pending_.insert(0, bare_tag_);  // not calls after all: every byte comes back as text
    }
    bare_tag_.clear();
    bare_json_ = false;
    drain(&out);
  }
  std::string rest = std::exchange(pending_, "");
  if (in_block_) rest.insert(0, block_.opener);
  in_block_ = false;
  emit_text(std::move(rest), &out);
  if (n_calls_ == 0 && !held_space_.empty()) out.push_back({false, std::exchange(held_space_, ""), {}});
  held_space_.clear();
  return out;
}

bool parse_json_tool_calls(std::string_view text, std::vector<ParsedToolCall>* out) {
  std::vector<ParsedToolCall> calls;
  if (!parse_bare_calls(text, &calls)) return false;
  for (ParsedToolCall& call : calls) out->push_back(std::move(call));
  return true;
}

ParsedOutput parse_tool_calls(std::string_view output, const ToolCallFormat& format) {
  return parse_tool_calls(output, {}, format);
}

ParsedOutput parse_tool_calls(std::string_view output, const std::vector<PlacedToolCall>& placed,
                              const ToolCallFormat& format) {
  ToolCallParser parser(format);
  std::vector<ToolCallPiece> pieces;
  auto take = [&pieces](std::vector<ToolCallPiece> more) {
    for (ToolCallPiece& piece : more) pieces.push_back(std::move(piece));
  };
  size_t begin = 0;
  for (const PlacedToolCall& call : placed) {
    take(parser.feed_call(output.substr(begin, call.at - begin), call.call));
    begin = call.at;
  }
  take(parser.feed(output.substr(begin)));
  take(parser.finish());
  ParsedOutput out;
  for (ToolCallPiece& piece : pieces) {
    if (piece.is_call) {
      out.calls.push_back(std::move(piece.call));
    } else {
      out.content += piece.text;
    }
  }
  if (!out.calls.empty()) out.content = std::string(trim_space(out.content));
  return out;
}

std::string tool_call_id(std::string_view prefix, std::string_view response_id, size_t index) {
  size_t cut = response_id.find_last_of("-_");
  std::string_view random = cut == std::string_view::npos ? response_id : response_id.substr(cut + 1);
  return std::string(prefix) + std::string(random) + "_" + std::to_string(index);
}

}  // namespace strata::server
