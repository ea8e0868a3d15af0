#include "server/tool_call_nemotron.h"

#include "server/tool_call_json_array.h"

namespace strata::server {

bool parse_nemotron_calls(std::string_view body, std::vector<ParsedToolCall>* out) {
  return parse_json_call_array(body, {"name", "arguments"}, out);
}

}  // namespace strata::server
