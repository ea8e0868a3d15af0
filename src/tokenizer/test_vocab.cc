#include "tokenizer/test_vocab.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "gguf/gguf_file.h"

namespace strata {

std::string shared_vocab_path(std::string_view file) {
  return std::string(STRATA_SHARED_DIR) + "/vocab/" + std::string(file);
}

std::unique_ptr<Tokenizer> load_shared_tokenizer(std::string_view file) {
  Result<GgufFile> gguf = GgufFile::Open(shared_vocab_path(file));
  if (!gguf.ok()) {
    ADD_FAILURE() << gguf.status().ToString();
    return nullptr;
  }
  Result<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::FromGguf(*gguf);
  if (!tokenizer.ok()) {
    ADD_FAILURE() << tokenizer.status().ToString();
    return nullptr;
  }
  return std::move(tokenizer).value();
}

std::string escape_bytes(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto byte = static_cast<uint8_t>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte >= 0x20 && byte < 0x7F) {
      out += c;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02X", byte);
      out += hex;
    }
  }
  return out + "\"";
}

}  // namespace strata
