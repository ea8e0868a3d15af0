#include "server/testing/tool_call_released.h"

#include <vector>

#include "server/tool_call_parser.h"

namespace strata::server::testing {

std::string released_by_parser(const ToolCallFormat& format, std::string_view output, size_t n_bytes) {
  ToolCallParser parser(format);
  std::string calls, text;
  auto take = [&calls, &text](const std::vector<ToolCallPiece>& pieces) {
    for (const ToolCallPiece& p : pieces) {
      if (p.is_call) {
        calls += "[" + p.call.name + " " + p.call.arguments_json + (p.call.id.empty() ? "" : " #" + p.call.id) + "]";
      } else {
        text += p.text;
      }
    }
  };
  for (size_t at = 0; at < output.size(); at += n_bytes) take(parser.feed(output.substr(at, n_bytes)));
  take(parser.finish());
  if (calls.empty()) return text;
  const size_t first = text.find_first_not_of(" \n");
  return calls + (first == std::string::npos ? "" : text.substr(first, text.find_last_not_of(" \n") - first + 1));
}

}  // namespace strata::server::testing
