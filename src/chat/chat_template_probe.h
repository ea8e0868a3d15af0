// What a chat template needs of an assistant's tool-call turn, found by rendering small probe
// conversations through it (the way llama.cpp's minja learns a template's capabilities).
//
// OpenAI clients send a call's arguments as JSON text and a call-only turn's content as null.
// Most templates (Qwen3, GLM-4.5, gpt-oss) write arguments with tojson or walk them as a mapping,
// so they are handed over as an object; DeepSeek's concatenate them with '+', which only works on
// text, and DeepSeek-R1's writes the calls only when the content is none. The probe tells which.
//
// Pure function of the template; thread-safe.
#pragma once

#include "chat/chat_template.h"

namespace strata {

struct ToolCallTurnForm {
  // Hand each call's arguments to the template as JSON text: it renders calls whose arguments
  // are text and fails or shows nothing for object arguments.
  bool arguments_as_text = false;
  // Hand a call turn without text to the template with a null content: with "" it leaves the
  // calls out, with null it renders them.
  bool null_content = false;
};

// Both false (arguments as objects, content as given) when the template renders calls with
// object arguments, renders no calls at all, or is the ChatML fallback.
ToolCallTurnForm probe_tool_call_turn_form(const ChatTemplate& chat_template);

// True when a tool history (a call and its result) with an OpenAI client's id ("call_" and 24
// characters) fails to render and the same history with an id of 9 alphanumeric characters
// renders: Mistral's templates (Small 3.2, Nemo) raise "Tool call IDs should be alphanumeric
// strings with length 9!". False for templates that take any id or render no calls, and ChatML.
bool requires_nine_character_call_ids(const ChatTemplate& chat_template);

// True when the template shows an assistant's reasoning given as a {"type": "thinking",
// "thinking": ...} chunk of its content (followed by a {"type": "text"} chunk) and not when it is
// given as the turn's reasoning_content and thinking fields: Ministral 3 Reasoning's. False for
// templates that read those fields (Qwen3's, gpt-oss's), show no reasoning or print the content
// whole, chunk dicts and all (Command R7B's), and ChatML.
bool renders_thinking_chunks(const ChatTemplate& chat_template);

// True when the template's generation prompt still ends with an open "<think>\n" although
// enable_thinking is false (DeepSeek-R1's, MiniMax-M2's): a lone user turn rendered with
// enable_thinking false. Qwen3's and Qwen3.5's close the block themselves, DeepSeek-V3.1's
// follows `thinking`; false for those, for templates without reasoning, and when the render fails.
bool opens_reasoning_switched_off(const ChatTemplate& chat_template);

// True when the template shows the tools it is offered: a lone user turn rendered with one tool
// in `tools` shows that tool's name (Qwen3, GLM-4.6, gpt-oss, Llama 3.x). False when it leaves
// them out (DeepSeek-R1's and V3.1's templates), for the ChatML fallback, and when that render
// fails.
bool renders_offered_tools(const ChatTemplate& chat_template);

// What the template writes for an assistant turn of one call, found the way llama.cpp's minja
// finds its example for templates that leave tools out: a user turn rendered with the assistant's
// opener, and the same turn followed by a call-only turn (content null, tool_name called with
// {"arg1": "some_value"}, as text or object per `form`); the example is what the second adds after
// the longest common prefix (a '<' shared by both is not counted, so an opener's tag that differs
// after it is kept whole). A trailing eos_text is dropped where minja drops it. Empty when the
// renders fail or the tail shows neither the name nor the value.
std::string probe_tool_call_example(const ChatTemplate& chat_template, const ToolCallTurnForm& form,
                                    const std::string& bos_text, const std::string& eos_text);

}  // namespace strata
