// ChatReplyPrinter: what `strata run --chat` prints of a reply as it streams. A thinking model's
// reasoning (a "<think>" block, or gpt-oss's harmony analysis channel, split by the server's
// ReasoningSplitter) is set apart between the style's markers, without the whitespace around it;
// the answer follows as the model wrote it; tags and harmony headers are never shown. With a mode
// that does not split, every byte passes through unchanged.
//
// One instance per reply; not thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/reasoning_splitter.h"

namespace strata::cli {

class ChatReplyPrinter {
 public:
  struct Style {
    std::string reasoning_open;   // printed before a run of reasoning
    std::string reasoning_close;  // printed after it: before the answer, or at the end
  };
  // For a terminal the reasoning is dimmed (ANSI faint, then a blank line); for anything else
  // (a pipe, a file) it is prefixed by "Reasoning: " and followed by a blank line.
  static Style StyleFor(bool terminal);

  ChatReplyPrinter(const server::ReasoningMode& mode, Style style);

  // One token's text; returns what to print now (text that may be part of a tag is held).
  std::string feed(std::string_view text);
  // The end of the reply: what is still held, and the reasoning's close if it is still open.
  std::string finish();

 private:
  std::string print(const std::vector<server::ReasoningPiece>& pieces);
  void print_reasoning(std::string_view text, std::string* out);
  void close_reasoning(std::string* out);

  bool split_;
  Style style_;
  server::ReasoningSplitter splitter_;
  bool reasoning_open_ = false;
  std::string held_space_;  // whitespace at the end of the reasoning so far: printed only if more follows
};

}  // namespace strata::cli
