// libFuzzer target: any bytes as a template source, rendered against a small conversation.
// Parsing and rendering must end with a value or a Status, never a crash or a hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "chat/chat_template.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string source(reinterpret_cast<const char*>(data), size);
  strata::Result<strata::ChatTemplate> t = strata::ChatTemplate::Parse(source);
  if (!t.ok()) return 0;
  strata::jinja::RenderOptions options;
  options.limits.max_steps = 200000;
  options.limits.max_output_bytes = 1 << 20;
  std::vector<strata::ChatMessage> messages = {
      {"system", "sys", nullptr}, {"user", "hi", nullptr}, {"assistant", "<think>x</think>yo", {{"tool_calls", {1}}}}};
  (void)t->apply(messages, true, "<s>", "</s>", {{"tools", {{{"a", 1}}}}}, options);
  return 0;
}
