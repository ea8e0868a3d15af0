// Mistral's tool calls as its newer models write them (Mistral Small 3.2, Devstral Small 1.1,
// Magistral, Ministral 3: the form their chat templates write back, testdata/mistral-small-3.2.jinja,
// devstral-small-2507.jinja, ministral-3-reasoning.jinja): each call is
//
//   [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}
//   [TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Paris"}      (Small 3.2: the call's id)
//
// several in a row for parallel calls. Nothing closes a call: its arguments end where their JSON
// object ends. The older form, `[TOOL_CALLS][{"name": ..., "arguments": {...}, "id": ...}]`
// (Mistral Nemo, Small 3.1), is read after the same opener too. Whitespace around the name, the id
// and before the JSON is allowed; the arguments must be a JSON object (keys keep the model's
// order). Pure functions; never throw.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "server/tool_call_parser.h"

namespace strata::server {

inline constexpr std::string_view kMistralCallsOpener = "[TOOL_CALLS]";

enum class MistralCallScan {
  kNeedMore,  // what follows the opener may still become a call: wait for more output
  kNotACall,  // it cannot: the opener is text
  kCall,      // one call (or the older form's calls) read
};

// Reads what follows one kMistralCallsOpener in `rest` (everything received after it so far).
// On kCall, appends the calls to *calls and sets *consumed to the bytes of rest they took (the
// JSON's last byte included); otherwise *calls and *consumed are untouched.
MistralCallScan scan_mistral_call(std::string_view rest, std::vector<ParsedToolCall>* calls, size_t* consumed);

// Bytes of the JSON object or array at the start of text (after no whitespace) up to and
// including its closing bracket, counting brackets outside strings and honouring escapes;
// npos while it is still open, 0 when text does not start with '{' or '['.
size_t json_container_length(std::string_view text);

}  // namespace strata::server
