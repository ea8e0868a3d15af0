#include "server/harmony_splitter.h"

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

#include "server/sse.h"

namespace strata::server {

namespace {

constexpr std::string_view kStartMarker = "<|start|>";
constexpr std::string_view kChannelMarker = "<|channel|>";
constexpr std::string_view kMessageMarker = "<|message|>";
constexpr std::string_view kConstrainMarker = "<|constrain|>";
constexpr std::string_view kRecipientKey = " to=";
// What a header may begin with, and what ends a body (kStartMarker is left for the next header).
constexpr std::array<std::string_view, 4> kHeaderOpeners = {kChannelMarker, kStartMarker, kRecipientKey,
                                                           kConstrainMarker};
constexpr std::array<std::string_view, 4> kBodyEnds = {"<|end|>", "<|return|>", "<|call|>", kStartMarker};
constexpr size_t kMaxHeaderBytes = 256;

bool harmony_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

// The word after `key` in a header (up to whitespace or the next marker), or "" when absent.
std::string header_word(std::string_view header, std::string_view key) {
  const size_t at = header.find(key);
  if (at == std::string_view::npos) return {};
  std::string_view rest = header.substr(at + key.size());
  const size_t end = std::find_if(rest.begin(), rest.end(), [](char c) { return harmony_space(c) || c == '<'; }) -
                     rest.begin();
  return std::string(rest.substr(0, end));
}

// Length of the longest suffix of text that is a proper prefix of one of the markers.
size_t partial_marker_suffix(std::string_view text) {
  size_t longest = 0;
  for (std::string_view marker : kBodyEnds) {
    for (size_t n = std::min(text.size(), marker.size() - 1); n > longest; --n) {
      if (text.substr(text.size() - n) == marker.substr(0, n)) {
        longest = n;
        break;
      }
    }
  }
  return longest;
}

// The call a message to `recipient` with this body makes: arguments that are a JSON object (or a
// JSON string holding one) as compact JSON, as the tool-call parser hands a Hermes block's on;
// anything else as written, raw.
ParsedToolCall harmony_tool_call(std::string_view recipient, const std::string& body) {
  constexpr std::string_view kFunctions = "functions.";
  if (recipient.starts_with(kFunctions)) recipient.remove_prefix(kFunctions.size());
  auto parse = [](const std::string& text) { return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false); };
  nlohmann::json arguments = parse(body);
  if (arguments.is_string()) arguments = parse(arguments.get<std::string>());
  if (!arguments.is_object()) return {std::string(recipient), body, /*arguments_raw=*/true};
  return {std::string(recipient), dump_json(arguments), /*arguments_raw=*/false};
}

// The call as content, when the request takes no calls: shown as the Hermes block a model writes
// (nothing parses it back, so the body goes in as written).
std::string harmony_call_text(const ParsedToolCall& call, const std::string& body) {
  const std::string arguments = call.arguments_raw ? dump_json(nlohmann::json(body)) : body;
  return "<tool_call>\n{\"name\": " + dump_json(nlohmann::json(call.name)) + ", \"arguments\": " + arguments +
         "}\n</tool_call>";
}

void emit_piece(bool reasoning, std::string_view text, std::vector<ReasoningPiece>* out) {
  if (text.empty()) return;
  if (!out->empty() && out->back().reasoning == reasoning && !out->back().call) {
    out->back().text.append(text);
    return;
  }
  out->push_back({reasoning, std::string(text)});
}

// A call goes out with the content just before it, as one piece.
void emit_call_piece(ParsedToolCall call, std::vector<ReasoningPiece>* out) {
  if (out->empty() || out->back().reasoning || out->back().call) out->push_back({false, ""});
  out->back().call = std::move(call);
}

}  // namespace

HarmonySplitter::HarmonySplitter(bool starts_in_analysis, bool tool_calls) : tool_calls_(tool_calls) {
  if (starts_in_analysis) {
    in_header_ = false;
    kind_ = Kind::kReasoning;
    saw_analysis_ = true;
  }
}

void HarmonySplitter::open_body(std::string_view header) {
  in_header_ = false;
  recipient_ = header_word(header, kRecipientKey.substr(1));
  const std::string channel = header_word(header, kChannelMarker);
  if (!recipient_.empty()) {
    kind_ = Kind::kToolCall;
    call_body_.clear();
  } else if (channel == "analysis") {
    kind_ = Kind::kReasoning;
  } else {
    kind_ = Kind::kContent;
  }
  if (kind_ == Kind::kReasoning) {
    saw_analysis_ = true;
    reasoning_tokens_ += header_tokens_;
  }
  header_tokens_ = 0;
}

void HarmonySplitter::body_text(std::string_view text, std::vector<ReasoningPiece>* out) {
  if (kind_ == Kind::kToolCall) {
    call_body_.append(text);
  } else {
    emit_piece(kind_ == Kind::kReasoning, text, out);
  }
}

void HarmonySplitter::close_body(std::vector<ReasoningPiece>* out) {
  if (kind_ == Kind::kToolCall) {
    ParsedToolCall call = harmony_tool_call(recipient_, call_body_);
    if (tool_calls_ && !call.name.empty()) {
      emit_call_piece(std::move(call), out);
    } else {
      emit_piece(false, harmony_call_text(call, call_body_), out);
    }
    call_body_.clear();
  }
  in_header_ = true;
  kind_ = Kind::kContent;
}

bool HarmonySplitter::drain_header() {
  const size_t at = pending_.find(kMessageMarker);
  if (at != std::string::npos && at <= kMaxHeaderBytes) {
    open_body(std::string_view(pending_).substr(0, at));
    pending_.erase(0, at + kMessageMarker.size());
    return true;
  }
  const std::string_view p = pending_;
  const bool may_be_header = std::any_of(kHeaderOpeners.begin(), kHeaderOpeners.end(), [p](std::string_view opener) {
    return p.size() < opener.size() ? opener.starts_with(p) : p.starts_with(opener);
  });
  if (p.empty() || (may_be_header && p.size() <= kMaxHeaderBytes)) return false;
  // Not a header: plain text, content up to the next end.
  in_header_ = false;
  kind_ = Kind::kContent;
  header_tokens_ = 0;
  return true;
}

void HarmonySplitter::drain_body(std::vector<ReasoningPiece>* out) {
  size_t at = std::string::npos;
  std::string_view end;
  for (std::string_view marker : kBodyEnds) {
    const size_t found = pending_.find(marker);
    if (found < at) {
      at = found;
      end = marker;
    }
  }
  if (at == std::string::npos) {
    const size_t keep = partial_marker_suffix(pending_);
    body_text(std::string_view(pending_).substr(0, pending_.size() - keep), out);
    pending_.erase(0, pending_.size() - keep);
    return;
  }
  body_text(std::string_view(pending_).substr(0, at), out);
  pending_.erase(0, at + (end == kStartMarker ? 0 : end.size()));
  close_body(out);
}

void HarmonySplitter::drain(std::vector<ReasoningPiece>* out) {
  for (bool progress = true; progress && !pending_.empty();) {
    if (in_header_) {
      progress = drain_header();
    } else {
      drain_body(out);
      progress = in_header_;  // a message ended: its successor's header may follow
    }
  }
}

std::vector<ReasoningPiece> HarmonySplitter::feed(std::string_view text) {
  // A token fed while an analysis message is open counts, its closing one included; a header's
  // tokens count once the header turns out to open an analysis message.
  if (in_header_) {
    ++header_tokens_;
  } else if (kind_ == Kind::kReasoning) {
    ++reasoning_tokens_;
  }
  pending_.append(text);
  std::vector<ReasoningPiece> out;
  drain(&out);
  return out;
}

std::vector<ReasoningPiece> HarmonySplitter::finish() {
  std::vector<ReasoningPiece> out;
  if (in_header_) {
    // A header the output was cut in is dropped; the start of an opener alone ("<|chan") is text.
    const std::string_view p = pending_;
    const bool opened = std::any_of(kHeaderOpeners.begin(), kHeaderOpeners.end(),
                                    [p](std::string_view opener) { return p.starts_with(opener); });
    if (opened) {
      pending_.clear();
    } else {
      in_header_ = false;
      kind_ = Kind::kContent;
    }
  }
  if (!in_header_) {
    body_text(pending_, &out);
    pending_.clear();
    close_body(&out);
  }
  return out;
}

bool prompt_opens_harmony_analysis(std::string_view prompt_tail) {
  constexpr std::string_view kOpenAnalysis = "<|channel|>analysis<|message|>";
  return prompt_tail.ends_with(kOpenAnalysis);
}

}  // namespace strata::server
