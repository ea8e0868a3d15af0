// Test helper: the chat templates of testdata/ (real models' templates kept as fixtures), parsed.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "chat/chat_template.h"

namespace strata {

// testdata/<name> parsed; fails the current test (and returns ChatML) when it cannot be read or
// parsed.
inline ChatTemplate load_testdata_template(const std::string& name) {
  std::ifstream in(std::string(STRATA_SOURCE_DIR) + "/src/chat/testdata/" + name, std::ios::binary);
  std::stringstream source;
  source << in.rdbuf();
  EXPECT_FALSE(source.str().empty()) << name;
  Result<ChatTemplate> t = ChatTemplate::Parse(source.str());
  EXPECT_TRUE(t.ok()) << name << ": " << t.status().ToString();
  return t.ok() ? std::move(t).value() : ChatTemplate::ChatML();
}

}  // namespace strata
