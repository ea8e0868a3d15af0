#include "server/tool_call_cohere.h"

#include "server/tool_call_json_array.h"

namespace strata::server {

bool parse_cohere_action(std::string_view body, std::vector<ParsedToolCall>* out) {
  return parse_json_call_array(body, {"tool_name", "parameters"}, out);
}

}  // namespace strata::server
