// The split regexes of each pre-tokenizer family, in PCRE2 syntax for UTF mode with Unicode
// properties (PCRE2_UTF | PCRE2_UCP), in the order PreTokenizer applies them: the first splits the
// text, each next one splits every piece the one before produced. Static storage, no state.
#pragma once

#include <span>

#include "tokenizer/pre_tokenizer.h"

namespace strata {

// One pattern or more; never empty.
std::span<const char* const> pre_tokenizer_patterns(PreTokenizerKind kind);

}  // namespace strata
