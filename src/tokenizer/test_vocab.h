// Test support: the vocab-only GGUF files of ../shared/vocab, and readable escaping of byte
// strings for failure messages. Used by the tokenizer tests only.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace strata {

// Path of ../shared/vocab/<file>.
std::string shared_vocab_path(std::string_view file);

// Loads a shared vocab file; fails the current test (and returns nullptr) when it cannot.
std::unique_ptr<Tokenizer> load_shared_tokenizer(std::string_view file);

// The test vectors beside a shared vocab file (see shared/README.md): the inputs of <file>.inp
// and, for each, the expected ids (without BOS) from <file>.out. Fail the current test when the
// file cannot be read or an input is not closed by a separator.
std::vector<std::string> read_vocab_inputs(std::string_view file);
std::vector<std::vector<int32_t>> read_vocab_expected(std::string_view file);

// The bytes of s as a C-like string literal: printable ASCII as is, everything else as \xNN.
std::string escape_bytes(std::string_view s);

}  // namespace strata
