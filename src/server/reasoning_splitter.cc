#include "server/reasoning_splitter.h"

#include <algorithm>

#include "server/harmony_splitter.h"
#include "server/tool_call_kimi.h"

namespace strata::server {

namespace {

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

// Length of the longest suffix of text that is a proper prefix of tag (a tag maybe begun).
size_t partial_tag_suffix(std::string_view text, std::string_view tag) {
  for (size_t n = std::min(text.size(), tag.size() - 1); n > 0; --n) {
    if (text.substr(text.size() - n) == tag.substr(0, n)) return n;
  }
  return 0;
}

// Where Kimi K2's first call tag (a section's opener, or a call's) begins in text; npos if none.
size_t first_kimi_call_tag(std::string_view text) {
  return std::min(text.find(kKimiCallsOpener), text.find(kKimiCallBegin));
}

// Appends a whole-output split's pieces; a call is placed after the content before it.
void gather_split_pieces(std::vector<ReasoningPiece> pieces, SplitOutput* split) {
  for (ReasoningPiece& piece : pieces) {
    (piece.reasoning ? split->reasoning : split->content).append(piece.text);
    if (piece.call) split->calls.push_back({split->content.size(), std::move(*piece.call)});
  }
}

}  // namespace

ReasoningSplitter::ReasoningSplitter(bool starts_open)
    : state_(starts_open ? State::kReasoning : State::kStart), opened_(starts_open) {}

ReasoningSplitter::ReasoningSplitter(const ReasoningMode& mode, bool tool_calls)
    : ReasoningSplitter(mode.starts_open) {
  tags_ = mode.tags;
  drop_leading_space_ = mode.starts_closed && !mode.starts_open;
  calls_end_reasoning_ = mode.calls_end_reasoning;
  if (mode.harmony) harmony_ = std::make_unique<HarmonySplitter>(mode.starts_open, tool_calls);
}

ReasoningSplitter::~ReasoningSplitter() = default;

int ReasoningSplitter::reasoning_tokens() const {
  return harmony_ ? harmony_->reasoning_tokens() : reasoning_tokens_;
}

bool ReasoningSplitter::saw_reasoning() const { return harmony_ ? harmony_->saw_reasoning() : opened_; }

namespace {

// Where text's trailing whitespace begins (its size when it has none).
size_t trailing_text_end(std::string_view text) {
  size_t end = text.size();
  while (end > 0 && is_space(text[end - 1])) --end;
  return end;
}

}  // namespace

void ReasoningSplitter::emit(bool reasoning, std::string_view text, std::vector<ReasoningPiece>* out) {
  if (text.empty()) return;
  if (!out->empty() && out->back().reasoning == reasoning) {
    out->back().text.append(text);
    return;
  }
  out->push_back({reasoning, std::string(text)});
}

bool ReasoningSplitter::drain_reasoning(std::vector<ReasoningPiece>* out) {
  const std::string_view p = pending_;
  const size_t at = p.find(tags_.close);
  size_t call_at = calls_end_reasoning_ ? first_kimi_call_tag(p) : std::string_view::npos;
  for (std::string_view marker : {tags_.answer_open, tags_.call_open}) {  // Cohere's answer or calls
    if (!marker.empty()) call_at = std::min(call_at, p.find(marker));
  }
  if (call_at < at) {  // a call (or answer) straight from the reasoning: it and what follows are content
    emit(true, p.substr(0, call_at), out);
    pending_.erase(0, call_at);
    state_ = State::kContent;
    return true;
  }
  if (at != std::string_view::npos) {
    emit(true, p.substr(0, at), out);
    pending_.erase(0, at + tags_.close.size());
    state_ = State::kAfterClose;
    return true;
  }
  size_t keep = partial_tag_suffix(p, tags_.close);
  if (calls_end_reasoning_) {
    keep = std::max({keep, partial_tag_suffix(p, kKimiCallsOpener), partial_tag_suffix(p, kKimiCallBegin)});
  }
  for (std::string_view marker : {tags_.answer_open, tags_.call_open}) {
    if (!marker.empty()) keep = std::max(keep, partial_tag_suffix(p, marker));
  }
  emit(true, p.substr(0, p.size() - keep), out);
  pending_.erase(0, p.size() - keep);
  return false;
}

void ReasoningSplitter::drain_content(std::vector<ReasoningPiece>* out) {
  if (tags_.answer_open.empty()) {
    emit(false, pending_, out);
    pending_.clear();
    return;
  }
  // Cohere's and Hunyuan's answer wrapper: each marker is left out wherever it comes (a stray
  // closer after the calls too), and a tail that may be one begun is held; with trim_answer the
  // whitespace after a marker and before a closer too (a whitespace tail is held till decided).
  const bool trim = tags_.trim_answer;
  for (;;) {
    if (space_after_marker_) {
      pending_.erase(0, std::find_if_not(pending_.begin(), pending_.end(), is_space) - pending_.begin());
      if (pending_.empty()) return;
      space_after_marker_ = false;
    }
    const size_t open_at = pending_.find(tags_.answer_open);
    const size_t close_at = pending_.find(tags_.answer_close);
    const size_t at = std::min(open_at, close_at);
    if (at == std::string::npos) break;
    std::string_view before = std::string_view(pending_).substr(0, at);
    if (trim && at == close_at) before = before.substr(0, trailing_text_end(before));
    emit(false, before, out);
    pending_.erase(0, at + (at == open_at ? tags_.answer_open.size() : tags_.answer_close.size()));
    space_after_marker_ = trim;
  }
  size_t keep =
      std::max(partial_tag_suffix(pending_, tags_.answer_open), partial_tag_suffix(pending_, tags_.answer_close));
  // With trim_answer, the whitespace before that tail too: it may end the reply or precede a closer.
  if (trim) keep = pending_.size() - trailing_text_end(std::string_view(pending_).substr(0, pending_.size() - keep));
  emit(false, std::string_view(pending_).substr(0, pending_.size() - keep), out);
  pending_.erase(0, pending_.size() - keep);
}

void ReasoningSplitter::drain(std::vector<ReasoningPiece>* out) {
  for (bool progress = true; progress;) {
    progress = false;
    std::string_view p = pending_;
    switch (state_) {
      case State::kStart: {
        const size_t lead = std::find_if_not(p.begin(), p.end(), is_space) - p.begin();
        std::string_view rest = p.substr(lead);
        if (rest.starts_with(tags_.open)) {
          pending_.erase(0, lead + tags_.open.size());
          state_ = State::kReasoning;
          opened_ = true;
          progress = true;
        } else if (!rest.empty() && !tags_.open.starts_with(rest)) {
          if (drop_leading_space_) pending_.erase(0, lead);
          state_ = State::kContent;
          progress = true;
        }
        break;
      }
      case State::kReasoning:
        progress = drain_reasoning(out);
        break;
      case State::kAfterClose: {
        const size_t lead = std::find_if_not(p.begin(), p.end(), is_space) - p.begin();
        pending_.erase(0, lead);
        if (!pending_.empty()) {
          state_ = State::kContent;
          progress = true;
        }
        break;
      }
      case State::kContent:
        drain_content(out);
        break;
    }
  }
}

std::vector<ReasoningPiece> ReasoningSplitter::feed(std::string_view text) {
  if (harmony_) return harmony_->feed(text);
  // A token that opens, continues or closes the reasoning counts as a reasoning token.
  const bool was_reasoning = state_ == State::kReasoning;
  const bool had_opened = opened_;
  if (state_ == State::kStart) ++start_tokens_;
  pending_.append(text);
  std::vector<ReasoningPiece> out;
  drain(&out);
  if (was_reasoning) {
    ++reasoning_tokens_;
  } else if (opened_ != had_opened) {
    reasoning_tokens_ += start_tokens_;  // the tokens that spelled the opening tag, this one included
  }
  return out;
}

std::vector<ReasoningPiece> ReasoningSplitter::finish() {
  if (harmony_) return harmony_->finish();
  std::vector<ReasoningPiece> out;
  // Whatever is still held is decided now: a lone "<thi" at the start is content, an unclosed
  // reasoning block's tail is reasoning, whitespace after a close is dropped.
  if (state_ == State::kStart) state_ = State::kContent;
  if (state_ == State::kReasoning) {
    emit(true, pending_, &out);
  } else if (state_ == State::kContent) {
    drain_content(&out);
    // A marker begun and never finished is text, and so is held whitespace but a trimmed
    // wrapper's (the end of the reply).
    const size_t end = tags_.trim_answer ? trailing_text_end(pending_) : pending_.size();
    emit(false, std::string_view(pending_).substr(0, end), &out);
  }
  pending_.clear();
  return out;
}

SplitOutput split_reasoning(std::string_view output, bool starts_open) {
  return split_reasoning(output, ReasoningMode{true, starts_open, false, false});
}

SplitOutput split_reasoning(std::string_view output, const ReasoningMode& mode, bool tool_calls) {
  ReasoningSplitter splitter(mode, tool_calls);
  SplitOutput split;
  gather_split_pieces(splitter.feed(output), &split);
  gather_split_pieces(splitter.finish(), &split);
  split.had_reasoning = splitter.saw_reasoning();
  return split;
}

SplitResult split_result_reasoning(const GenerationResult& result, bool starts_open) {
  return split_result_reasoning(result, ReasoningMode{true, starts_open, false, false});
}

SplitResult split_result_reasoning(const GenerationResult& result, const ReasoningMode& mode, bool tool_calls) {
  ReasoningSplitter splitter(mode, tool_calls);
  SplitResult split;
  auto take = [&split](std::vector<ReasoningPiece> pieces) { gather_split_pieces(std::move(pieces), &split.output); };
  const std::string_view text = result.text;
  size_t begin = 0;
  for (size_t end : result.token_text_ends) {
    take(splitter.feed(text.substr(begin, end - begin)));
    begin = end;
  }
  take(splitter.feed(text.substr(begin)));  // text released only at the end
  take(splitter.finish());
  split.reasoning_tokens = splitter.reasoning_tokens();
  split.output.had_reasoning = splitter.saw_reasoning();
  return split;
}

bool prompt_opens_reasoning(std::string_view prompt_tail, const ReasoningTags& tags) {
  while (!prompt_tail.empty() && is_space(prompt_tail.back())) prompt_tail.remove_suffix(1);
  return prompt_tail.ends_with(tags.open);
}

bool prompt_closes_reasoning(std::string_view prompt_tail, const ReasoningTags& tags) {
  while (!prompt_tail.empty() && is_space(prompt_tail.back())) prompt_tail.remove_suffix(1);
  return prompt_tail.ends_with(tags.close);
}

ReasoningMode chat_reasoning_mode(const ModelText& text, const std::vector<int32_t>& prompt) {
  ReasoningMode mode;
  mode.harmony = text.writes_harmony();
  mode.split = mode.harmony || text.is_thinking_model();
  if (!mode.split) return mode;
  mode.tags = text.reasoning_tags();
  // Enough tokens to spell the longest tag ("<|START_THINKING|>", 18 bytes) even where the
  // vocabulary splits it (byte-level test vocabularies do).
  constexpr size_t kTailTokens = 24;
  const size_t n_tail = std::min(prompt.size(), kTailTokens);
  const std::vector<int32_t> tail(prompt.end() - static_cast<std::ptrdiff_t>(n_tail), prompt.end());
  const std::string tail_text = text.detokenize(tail);
  mode.starts_open =
      mode.harmony ? prompt_opens_harmony_analysis(tail_text) : prompt_opens_reasoning(tail_text, mode.tags);
  mode.starts_closed = !mode.harmony && prompt_closes_reasoning(tail_text, mode.tags);
  mode.calls_end_reasoning = !mode.harmony && text.tool_call_syntax() == ToolCallSyntax::kKimiK2;
  return mode;
}

}  // namespace strata::server
