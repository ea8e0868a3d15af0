// ToolCallParser: finds the tool calls in a model's output, as it streams or all at once.
//
// Recognised forms, by the syntax of the ToolCallFormat the parser is made with (tool_call_syntax.h):
//  - kJson, Hermes / Qwen: one or more `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`
//    blocks (whitespace around the JSON allowed), with free text around them;
//  - a bare JSON object `{"name": ..., "arguments"|"parameters": {...}}` that is the whole
//    output (Llama 3.1 style; surrounding whitespace allowed), or a JSON array of such objects
//    (Mistral style), each optionally after the tag the model family writes before its calls
//    when the detokenizer renders it: `<|python_tag|>` (Llama 3.1) or `[TOOL_CALLS]` (Mistral).
//  - kArgTags, GLM-4.5: one or more `<tool_call>NAME <arg_key>K</arg_key><arg_value>V</arg_value>...
//    </tool_call>` blocks with free text around them (tool_call_arg_tags.h), or a block holding
//    JSON as above (what a forced call is constrained to: output_constraint.h); no bare JSON: an
//    output that begins with '{' is text.
//  - kDeepSeekR1, kDeepSeekV31: sections `<｜tool▁calls▁begin｜>...<｜tool▁calls▁end｜>` of one or
//    more calls in DeepSeek's markup (tool_call_deepseek.h), released together when the section
//    closes, with free text around them; `<tool_call>` blocks holding JSON as in kArgTags; no bare
//    JSON. A section with anything in it that is not a call is text, whole.
//  - kXmlParams, Qwen3-Coder / Qwen3.5: one or more `<tool_call>` blocks each holding one or more
//    `<function=NAME><parameter=KEY>\nVALUE\n</parameter>...</function>` (tool_call_xml.h; values
//    typed by the format's ToolParamTypes), or holding JSON as in kArgTags; a function written
//    without the `<tool_call>` around it is a block of its own (closed by `</function>`); no bare
//    JSON; Seed-OSS's `<seed:tool_call>` blocks are read as `<tool_call>` ones. A block that is
//    anything else is text, whole.
//  - kMistral: `[TOOL_CALLS]NAME[ARGS]{...}` calls, with `[CALL_ID]ID` before [ARGS] when the model
//    writes an id, and `[TOOL_CALLS][{...}]` JSON calls (tool_call_mistral.h), each released when
//    its JSON closes, with free text around them; `<tool_call>` blocks holding JSON as in kArgTags;
//    no bare JSON. An opener followed by what cannot become a call is text, and so is a call never
//    finished.
//  - kKimiK2: sections `<|tool_calls_section_begin|>...<|tool_calls_section_end|>` of one or more
//    calls in Kimi K2's markup, or a lone `<|tool_call_begin|>...<|tool_call_end|>` call
//    (tool_call_kimi.h), otherwise as DeepSeek's.
//  - kMiniMaxM2, MiniMax-M2: one or more `<minimax:tool_call>...</minimax:tool_call>` blocks each
//    holding one or more `<invoke name="NAME"><parameter name="KEY">VALUE</parameter>...</invoke>`
//    (tool_call_minimax.h; values typed by the format's ToolParamTypes), with free text around
//    them; `<tool_call>` blocks holding JSON as in kArgTags; no bare JSON. A block that is
//    anything else is text, whole.
//  - kGemma4: one or more `<|tool_call>call:NAME{...}<tool_call|>` calls in Gemma 4's argument
//    notation (tool_call_gemma4.h), with free text around them; otherwise as kMiniMaxM2.
//  - kCohere: one or more `<|START_ACTION|>[...]<|END_ACTION|>` actions, each a JSON array of
//    {"tool_name", "parameters"} calls (tool_call_cohere.h), with free text around them; otherwise
//    as kMiniMaxM2.
//  - kNemotron: one or more `<TOOLCALL>[...]</TOOLCALL>` blocks, each a JSON array of {"name",
//    "arguments"} calls (tool_call_nemotron.h); otherwise as kMiniMaxM2.
//  - kHunyuan: one or more `<tool_calls>[...]</tool_calls>` blocks, each read as kNemotron's
//    (tool_call_hunyuan.h); otherwise as kMiniMaxM2.
//  - kLfm2, Liquid's LFM2 / LFM2.5: one or more `<|tool_call_start|>[...]<|tool_call_end|>` blocks,
//    each a Python list of NAME(KEY=VALUE, ...) calls (tool_call_lfm2.h); otherwise as kMiniMaxM2.
// Arguments may be an object or a string; a string holding a JSON object is unwrapped, any other
// string is the call's raw arguments (ParsedToolCall::arguments_raw). Anything that does not parse
// as a call (bad JSON, no name, arguments neither an object nor a string, a block never closed)
// comes back unchanged as text: no byte of the output is ever dropped, apart from whitespace-only
// text between or after tool calls.
// Calls that arrive already parsed (a gpt-oss reply's messages to tools, which the harmony
// splitter takes apart: harmony_splitter.h) are fed with feed_call() at their place in the text;
// they come out as they went in, and the text around them is treated as around a <tool_call>
// block.
//
// One instance follows one output on one thread. feed() returns what can be released now;
// text that might still be the start of a block's opening tag, the inside of an open block, or an
// output that begins with '{', '[' or one of those tags is held until it is decided,
// feed_call() or finish() is called.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "server/tool_call_syntax.h"

namespace strata::server {

struct ParsedToolCall {
  std::string name;
  // The arguments object as compact JSON text; when arguments_raw, the text the model wrote
  // instead, which is not a JSON object (OpenAI answers it as it is, Anthropic wrapped as
  // {"INVALID_JSON": text}).
  std::string arguments_json;
  bool arguments_raw = false;
  // The id the model wrote for the call (Mistral's [CALL_ID], the "id" of a JSON call); empty when
  // it wrote none, and the response makes one up (tool_call_id()).
  std::string id = {};
};

// One released piece of output: text (call is unset) or one complete tool call.
struct ToolCallPiece {
  bool is_call = false;
  std::string text;
  ParsedToolCall call;
};

class ToolCallParser {
 public:
  // format: the model's syntax and, for kXmlParams and kMiniMaxM2, the offered tools' parameter
  // types.
  explicit ToolCallParser(ToolCallFormat format = {});

  std::vector<ToolCallPiece> feed(std::string_view text);
  // text, then a call already parsed (a harmony call): released as feed() of the text followed by
  // a <tool_call> block holding the call would release them, except that the call is never read
  // as part of the text: an output that began like bare JSON is text after all, and a <tool_call>
  // block the text left open is text.
  std::vector<ToolCallPiece> feed_call(std::string_view text, ParsedToolCall call);
  // The end of the output: releases everything still held.
  std::vector<ToolCallPiece> finish();
  int n_calls() const { return n_calls_; }

 private:
  // What a block holds, and so how its body is read.
  enum class BlockKind {
    kToolCallTag, kDeepSeekSection, kXmlFunction, kMistralCalls, kKimiSection, kKimiCall, kMiniMaxCalls, kGemma4Call,
    kCohereAction, kNemotronCalls, kLfm2Calls
  };
  // A block's opening and closing tags (static text) and what it holds. A [TOOL_CALLS] block has
  // no closer: its call ends where its JSON does (close_mistral_call()).
  struct BlockMarkup {
    std::string_view opener;
    std::string_view closer;
    BlockKind kind = BlockKind::kToolCallTag;
  };
  // The blocks a syntax knows: <tool_call> in every syntax, then its own markup.
  static std::vector<BlockMarkup> block_markups(ToolCallSyntax syntax);
  // The calls of a block's body appended to *out; false (*out untouched) when it holds anything else.
  static bool parse_block(BlockKind kind, std::string_view body, const ToolCallFormat& format,
                          std::vector<ParsedToolCall>* out);

  void drain(std::vector<ToolCallPiece>* out);
  // Inside a block: when its closing tag has arrived, releases its calls, or the whole block as
  // text when it does not parse, and returns true; false while the block is still open.
  bool close_block(std::vector<ToolCallPiece>* out);
  // close_block() for a [TOOL_CALLS] block: true once its call is read or it is known not to be one.
  bool close_mistral_call(std::vector<ToolCallPiece>* out);
  // The first block opener in pending_ (npos when none), and which block it opens.
  size_t find_opener(BlockMarkup* block) const;
  void emit_text(std::string text, std::vector<ToolCallPiece>* out);
  void emit_call(ParsedToolCall call, std::vector<ToolCallPiece>* out);

  ToolCallFormat format_;
  std::vector<BlockMarkup> blocks_;  // the blocks this syntax knows
  BlockMarkup block_;                // the block we are in (in_block_)
  std::string pending_;       // received but not yet released
  std::string held_space_;    // whitespace-only text released later (or dropped after a call)
  std::string bare_tag_;      // the tag (and space before it) cut from a bare-JSON output
  bool started_ = false;      // a non-whitespace byte has been seen
  bool bare_json_ = false;    // the output starts with '{', '[' or a tag: held whole until finish()
  bool in_block_ = false;     // inside a block (pending_ is the block's body so far)
  int n_calls_ = 0;
};

// The whole output at once: the text outside the calls (trimmed when there are calls) and the
// calls in order.
struct ParsedOutput {
  std::string content;
  std::vector<ParsedToolCall> calls;
};
ParsedOutput parse_tool_calls(std::string_view output, const ToolCallFormat& format = {});

// One call object {"name", "arguments" | "parameters", "id"?} or a non-empty array of them, as JSON
// text (the bare form), appended to *out; false, *out untouched, when text is anything else.
bool parse_json_tool_calls(std::string_view text, std::vector<ParsedToolCall>* out);

// A call already parsed (a harmony reply's) and where the model wrote it: after the first `at`
// bytes of the text output.
struct PlacedToolCall {
  size_t at = 0;
  ParsedToolCall call;
};
// The whole output with such calls, in order of `at`, between its text (fed by feed_call).
ParsedOutput parse_tool_calls(std::string_view output, const std::vector<PlacedToolCall>& placed,
                              const ToolCallFormat& format = {});

// The id of a response's index-th tool call: prefix ("call_", "toolu_") followed by the random
// part of the response id (after its last '-' or '_') and the index, so ids are unique across
// a conversation.
std::string tool_call_id(std::string_view prefix, std::string_view response_id, size_t index);

}  // namespace strata::server
