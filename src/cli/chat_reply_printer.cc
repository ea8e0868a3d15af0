#include "cli/chat_reply_printer.h"

#include <utility>

namespace strata::cli {

namespace {

constexpr std::string_view kSpace = " \t\r\n";

}  // namespace

ChatReplyPrinter::Style ChatReplyPrinter::StyleFor(bool terminal) {
  if (terminal) return Style{"\x1b[2m", "\x1b[0m\n\n"};
  return Style{"Reasoning: ", "\n\n"};
}

ChatReplyPrinter::ChatReplyPrinter(const server::ReasoningMode& mode, Style style)
    : split_(mode.split), style_(std::move(style)), splitter_(mode) {}

std::string ChatReplyPrinter::feed(std::string_view text) {
  if (!split_) return std::string(text);
  return print(splitter_.feed(text));
}

std::string ChatReplyPrinter::finish() {
  if (!split_) return "";
  std::string out = print(splitter_.finish());
  close_reasoning(&out);
  return out;
}

std::string ChatReplyPrinter::print(const std::vector<server::ReasoningPiece>& pieces) {
  std::string out;
  for (const server::ReasoningPiece& piece : pieces) {
    if (piece.reasoning) {
      print_reasoning(piece.text, &out);
    } else {
      close_reasoning(&out);
      out += piece.text;
    }
  }
  return out;
}

void ChatReplyPrinter::print_reasoning(std::string_view text, std::string* out) {
  if (!reasoning_open_) {
    const size_t first = text.find_first_not_of(kSpace);
    if (first == std::string_view::npos) return;  // whitespace before the reasoning proper
    text.remove_prefix(first);
    out->append(style_.reasoning_open);
    reasoning_open_ = true;
  }
  const size_t last = text.find_last_not_of(kSpace);
  if (last == std::string_view::npos) {
    held_space_.append(text);
    return;
  }
  out->append(std::exchange(held_space_, ""));
  out->append(text.substr(0, last + 1));
  held_space_.assign(text.substr(last + 1));
}

void ChatReplyPrinter::close_reasoning(std::string* out) {
  if (!reasoning_open_) return;
  out->append(style_.reasoning_close);
  reasoning_open_ = false;
  held_space_.clear();
}

}  // namespace strata::cli
