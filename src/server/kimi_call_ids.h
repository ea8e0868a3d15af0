// Kimi K2's tool histories: its templates write each call of an assistant turn under the id
// `functions.NAME:INDEX` (testdata/kimi-k2*.jinja), the form the model writes its own calls in, and
// the first K2-Instruct's template writes a tool result under the id the client sent
// (`## Return of ID`). Clients send back the ids Strata gave them ("call_...", "toolu_...":
// tool_call_kimi.h) or ids of their own, so before a Kimi template sees a history every call is
// renamed `functions.NAME:INDEX`, numbered as the template numbers calls, and every tool result
// takes the new id of the call it answers: the prompt then reads as one the model wrote itself.
//
// Pure functions; thread-safe.
#pragma once

#include <vector>

#include "chat/chat_template.h"

namespace strata::server {

// How a template numbers the calls of a tool history (the INDEX of `functions.NAME:INDEX`).
enum class KimiCallNumbering {
  kNone,          // not a Kimi K2 template: ids reach the template as the client sent them
  kPerTurn,       // each assistant turn counts its calls from 0 (the first K2-Instruct's template)
  kConversation,  // the calls are counted from 0 through the conversation (later K2 templates)
};

// kPerTurn when a probe history of two call turns (one call each, a result after each) renders
// the second call as `functions.NAME:0`; otherwise kConversation, what later templates and the
// models behind them use (also when the template writes the client's ids or the render fails).
// Only for a template of Kimi K2's syntax (the caller decides; tool_call_syntax.h).
KimiCallNumbering probe_kimi_call_numbering(const ChatTemplate& chat_template);

// Renames, in order, each assistant tool call's "id" to `functions.NAME:INDEX` (NAME its
// function's name) and each tool message's "tool_call_id" to the new id of the latest earlier call
// that had that id; a tool_call_id that names no earlier call is left as sent. Nothing changes
// for kNone. Messages hold their tool fields in ChatMessage::extra.
void number_kimi_calls(KimiCallNumbering numbering, std::vector<ChatMessage>* messages);

}  // namespace strata::server
