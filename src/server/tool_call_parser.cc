#include "server/tool_call_parser.h"

#include "server/tool_call_arg_tags.h"
#include "server/tool_call_deepseek.h"
#include "server/tool_call_minimax.h"
#include "server/tool_call_xml.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <utility>

namespace strata::server {

namespace {

using nlohmann::json;

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
  json call = json::parse(trim_space(body), nullptr, /*allow_exceptions=*/false);
  if (!call.is_object()) return false;
  auto name = call.find("name");
  if (name == call.end() || !name->is_string() || name->get<std::string>().empty()) return false;
  json arguments = json::object();
  auto args = call.find("arguments");
  if (args == call.end()) args = call.find("parameters");
  if (args != call.end() && !args->is_null()) {
    arguments = args->is_string()
                    ? json::parse(args->get<std::string>(), nullptr, /*allow_exceptions=*/false)
                    : *args;
  }
  const bool raw = args != call.end() && args->is_string() && !arguments.is_object();
  if (!arguments.is_object() && !raw) return false;
  out->name = name->get<std::string>();
  out->arguments_raw = raw;
  out->arguments_json = raw ? args->get<std::string>() : arguments.dump(-1, ' ', false, json::error_handler_t::replace);
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
  json calls = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!calls.is_array() || calls.empty()) return false;
  for (const json& item : calls) {
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

// The tags that open a block of calls in this syntax: <tool_call>, DeepSeek's section openers,
// a function outside any block for kXmlParams, and MiniMax-M2's <minimax:tool_call>.
std::vector<std::string_view> block_openers(ToolCallSyntax syntax) {
  std::vector<std::string_view> openers = {kOpenTag};
  if (is_deepseek_syntax(syntax)) {
    openers.insert(openers.end(), kDeepSeekCallsOpeners.begin(), kDeepSeekCallsOpeners.end());
  }
  if (syntax == ToolCallSyntax::kXmlParams) openers.push_back(kXmlFunctionOpener);
  if (syntax == ToolCallSyntax::kMiniMaxM2) openers.push_back(kMiniMaxCallsOpener);
  return openers;
}

// What closes a block that opener opened.
std::string_view block_closer(std::string_view opener) {
  if (opener == kOpenTag) return kCloseTag;
  if (opener == kXmlFunctionOpener) return kXmlFunctionCloser;
  if (opener == kMiniMaxCallsOpener) return kMiniMaxCallsCloser;
  return kDeepSeekCallsCloser;
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

// The calls of a block (opener, body, then its closer), as its opener's syntax reads them.
bool parse_block(std::string_view opener, std::string_view body, const ToolCallFormat& format,
                 std::vector<ParsedToolCall>* out) {
  if (opener == kOpenTag) return parse_tool_call_block(body, format, out);
  if (opener == kXmlFunctionOpener) {
    return parse_xml_function_calls(std::string(opener) + std::string(body) + std::string(kXmlFunctionCloser),
                                    format.param_types, out);
  }
  if (opener == kMiniMaxCallsOpener) return parse_minimax_invokes(body, format.param_types, out);
  return parse_deepseek_calls(body, format.syntax, out);
}

}  // namespace

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
    : format_(std::move(format)), openers_(block_openers(format_.syntax)) {}

bool ToolCallParser::close_block(std::vector<ToolCallPiece>* out) {
  const std::string_view close = block_closer(block_open_);
  const size_t at = pending_.find(close);
  if (at == std::string::npos) return false;
  const std::string body = pending_.substr(0, at);
  pending_.erase(0, at + close.size());
  in_block_ = false;
  std::vector<ParsedToolCall> calls;
  const bool parsed = parse_block(block_open_, body, format_, &calls);
  if (!parsed) {
    emit_text(std::exchange(block_open_, "") + body + std::string(close), out);
    return true;
  }
  block_open_.clear();
  for (ParsedToolCall& call : calls) emit_call(std::move(call), out);
  return true;
}

// The first block opener in pending_ (npos when none) and which one it is.
size_t ToolCallParser::find_opener(std::string_view* opener) const {
  size_t first = std::string::npos;
  for (std::string_view tag : openers_) {
    const size_t at = pending_.find(tag);
    if (at < first) {
      first = at;
      *opener = tag;
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
    std::string_view opener;
    const size_t open = find_opener(&opener);
    if (open == std::string::npos) {
      size_t keep = 0;
      for (std::string_view tag : openers_) keep = std::max(keep, partial_tag_length(pending_, tag));
      emit_text(pending_.substr(0, pending_.size() - keep), out);
      pending_.erase(0, pending_.size() - keep);
      return;
    }
    emit_text(pending_.substr(0, open), out);
    pending_.erase(0, open + opener.size());
    block_open_ = std::string(opener);
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
  if (in_block_) rest.insert(0, std::exchange(block_open_, ""));
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
  if (in_block_) rest.insert(0, std::exchange(block_open_, ""));
  in_block_ = false;
  emit_text(std::move(rest), &out);
  if (n_calls_ == 0 && !held_space_.empty()) out.push_back({false, std::exchange(held_space_, ""), {}});
  held_space_.clear();
  return out;
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
