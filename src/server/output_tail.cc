#include "server/output_tail.h"

#include <utility>

namespace strata::server {

std::vector<ToolCallPiece> OutputTail::pieces() && {
  std::vector<ToolCallPiece> out = std::move(answer);
  if (!text.empty()) out.push_back({false, std::move(text), {}});
  return out;
}

OutputTail finish_output(std::string_view last_text, bool split_reasoning, ReasoningSplitter& splitter,
                         bool parse_tool_calls, ToolCallParser& parser) {
  OutputTail out;
  std::string tail(last_text);
  if (split_reasoning) {
    tail.clear();
    std::vector<ReasoningPiece> pieces = splitter.feed(last_text);
    for (ReasoningPiece& piece : splitter.finish()) pieces.push_back(std::move(piece));
    for (ReasoningPiece& piece : pieces) {
      if (piece.reasoning) {
        out.reasoning.push_back(std::move(piece.text));
        continue;
      }
      tail += piece.text;
      if (!piece.call) continue;
      // A harmony call, already parsed by the splitter: the text before it goes first.
      for (ToolCallPiece& parsed : parser.feed_call(std::exchange(tail, ""), std::move(*piece.call))) {
        out.answer.push_back(std::move(parsed));
      }
    }
  }
  if (!parse_tool_calls) {
    out.text = std::move(tail);
    return out;
  }
  for (ToolCallPiece& piece : parser.feed(tail)) out.answer.push_back(std::move(piece));
  for (ToolCallPiece& piece : parser.finish()) out.answer.push_back(std::move(piece));
  return out;
}

}  // namespace strata::server
