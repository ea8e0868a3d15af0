#include "tokenizer/test_vocab.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "gguf/gguf_file.h"

namespace strata {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

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

// Inputs are each followed by "\n__ggml_vocab_test__\n" (an input may be empty or all newlines).
std::vector<std::string> read_vocab_inputs(std::string_view file) {
  static constexpr std::string_view kSeparator = "\n__ggml_vocab_test__\n";
  const std::string path = shared_vocab_path(std::string(file) + ".inp");
  const std::string text = read_file(path);
  std::vector<std::string> inputs;
  size_t begin = 0;
  for (size_t end; (end = text.find(kSeparator, begin)) != std::string::npos; begin = end + kSeparator.size()) {
    inputs.push_back(text.substr(begin, end - begin));
  }
  EXPECT_EQ(begin, text.size()) << path << ": text after the last separator";
  return inputs;
}

std::vector<std::vector<int32_t>> read_vocab_expected(std::string_view file) {
  std::istringstream in(read_file(shared_vocab_path(std::string(file) + ".out")));
  std::vector<std::vector<int32_t>> expected;
  for (std::string line; std::getline(in, line);) {
    std::istringstream ids(line);
    expected.emplace_back();
    for (int32_t id; ids >> id;) expected.back().push_back(id);
  }
  return expected;
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
