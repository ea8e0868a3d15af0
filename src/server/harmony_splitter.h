// HarmonySplitter: separates a gpt-oss reply, written in OpenAI's harmony format, into its
// reasoning (the analysis channel) and its answer (the final channel), as it streams or all at
// once. ReasoningSplitter uses it for harmony models (ReasoningMode::harmony).
//
// After the prompt's "<|start|>assistant" a reply is a run of messages, each a header, a body
// and an end:
//   <|channel|>analysis<|message|>...<|end|><|start|>assistant<|channel|>final<|message|>...
// The header is everything up to "<|message|>": an optional "<|start|>ROLE", "<|channel|>NAME",
// an optional recipient " to=functions.NAME" (before or after the channel) and an optional
// "<|constrain|>json" or content type. A body runs to "<|end|>", "<|return|>" or "<|call|>"
// (the last two end the reply, so the engine stops on them and they are rarely seen as text),
// or to a "<|start|>" that opens the next message. Headers and ends are dropped. Bodies go:
//   - analysis: reasoning;
//   - a message to a recipient (a tool call, on the commentary channel): held whole and released
//     at its end as a call (ReasoningPiece::call, a ParsedToolCall) when the splitter takes calls
//     apart (the request offered tools): its name is the recipient without its "functions."
//     namespace, its arguments the body: a JSON object (or a JSON string holding one) as compact
//     JSON, anything else as written, raw (still a call: the recipient says so). The call is
//     never text, so nothing its body holds can change it. Otherwise, and for a recipient with no
//     name after the namespace, the message is shown as content in the Hermes form
//     "<tool_call>\n{"name": NAME, "arguments": BODY}\n</tool_call>" (a BODY that is not a JSON
//     object written as a JSON string);
//   - final, commentary without a recipient (a preamble to the user) and any other channel: content.
// An output that does not start like a header ("<|channel|>", "<|start|>", " to=",
// "<|constrain|>"), or whose header runs past 256 bytes without "<|message|>", is content as it
// is, byte for byte, up to the next end. A header cut off by the end of the output is dropped
// (but not the mere start of an opener, "<|chan", which is text).
// Text that may still be the start of a marker is held back until it is decided or finish().
//
// Reasoning tokens are the tokens fed while an analysis message was open, its header and end
// included.
//
// One instance follows one output on one thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/reasoning_splitter.h"

namespace strata::server {

class HarmonySplitter {
 public:
  // starts_in_analysis: the prompt ended inside an analysis message ("...<|channel|>analysis<|message|>").
  // tool_calls: messages to tools come out as calls, not as content.
  explicit HarmonySplitter(bool starts_in_analysis = false, bool tool_calls = false);

  std::vector<ReasoningPiece> feed(std::string_view text);
  std::vector<ReasoningPiece> finish();
  int reasoning_tokens() const { return reasoning_tokens_; }
  bool saw_reasoning() const { return saw_analysis_; }

 private:
  enum class Kind { kReasoning, kContent, kToolCall };
  void drain(std::vector<ReasoningPiece>* out);
  // At a header in pending_: opens the body at "<|message|>", or makes pending_ a content body
  // when it cannot be a header; false when more text is needed to tell.
  bool drain_header();
  void drain_body(std::vector<ReasoningPiece>* out);
  void open_body(std::string_view header);
  void body_text(std::string_view text, std::vector<ReasoningPiece>* out);
  void close_body(std::vector<ReasoningPiece>* out);

  bool in_header_ = true;
  Kind kind_ = Kind::kContent;
  std::string pending_;
  std::string recipient_;   // the tool a kToolCall message is addressed to
  std::string call_body_;   // a kToolCall message's body so far
  int reasoning_tokens_ = 0;
  int header_tokens_ = 0;   // tokens fed while the current header was open
  bool saw_analysis_ = false;
  bool tool_calls_ = false;
};

// True when a prompt's text ends inside an open harmony analysis message, so the output starts
// with reasoning and no header.
bool prompt_opens_harmony_analysis(std::string_view prompt_tail);

}  // namespace strata::server
