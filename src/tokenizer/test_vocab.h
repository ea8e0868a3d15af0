// Test support: the vocab-only GGUF files of ../shared/vocab, and readable escaping of byte
// strings for failure messages. Used by the tokenizer tests only.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "tokenizer/tokenizer.h"

namespace strata {

// Path of ../shared/vocab/<file>.
std::string shared_vocab_path(std::string_view file);

// Loads a shared vocab file; fails the current test (and returns nullptr) when it cannot.
std::unique_ptr<Tokenizer> load_shared_tokenizer(std::string_view file);

// The bytes of s as a C-like string literal: printable ASCII as is, everything else as \xNN.
std::string escape_bytes(std::string_view s);

}  // namespace strata
