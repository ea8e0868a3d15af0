// The end of a streamed answer: what the reasoning splitter and the tool-call parser still hold
// when the final event arrives, in the order the stream renderers send it (the reasoning first,
// then the answer's text and calls).
//
// Free function over the renderer's own splitter and parser; not thread-safe beyond theirs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/reasoning_splitter.h"
#include "server/tool_call_parser.h"

namespace strata::server {

struct OutputTail {
  std::vector<std::string> reasoning;  // reasoning text still held, in order
  std::vector<ToolCallPiece> answer;   // parse_tool_calls: the text and calls still held, in order
  std::string text;                    // otherwise: the answer's text still held (may be empty)

  // The answer as pieces to send: the calls and text, then the held text as one more piece
  // when there is any (renderers that send text and calls through one path).
  std::vector<ToolCallPiece> pieces() &&;
};

// last_text: the final event's text. split_reasoning: the output goes through splitter
// (reasoning_splitter.h); parse_tool_calls: its answer goes through parser. Both are finished.
OutputTail finish_output(std::string_view last_text, bool split_reasoning, ReasoningSplitter& splitter,
                         bool parse_tool_calls, ToolCallParser& parser);

}  // namespace strata::server
