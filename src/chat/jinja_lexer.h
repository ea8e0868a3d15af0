// The Jinja lexer: splits template source into text runs and the tokens inside {{ }} and
// {% %} tags, dropping {# #} comments and applying whitespace control the way Jinja2 does
// with Hugging Face's settings (trim_blocks and lstrip_blocks on; `-` strips, `+` keeps).
// Stateless; safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace strata::jinja {

enum class TokenKind { kText, kVarBegin, kVarEnd, kBlockBegin, kBlockEnd, kName, kString, kInt, kFloat, kOp, kEnd };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;      // kText: the raw text; kName: identifier; kString: decoded value; kOp: operator
  int64_t int_value = 0;
  double float_value = 0.0;
  int line = 1;          // 1-based position of the token's first character in the source
  int column = 1;
};

struct LexOptions {
  bool trim_blocks = true;    // drop the first newline after a block or comment tag
  bool lstrip_blocks = true;  // drop spaces and tabs before a block or comment tag that starts a line
};

// Errors name the line and column: unclosed tags, comments and strings, unexpected characters.
Result<std::vector<Token>> lex(std::string_view source, const LexOptions& options = {});

}  // namespace strata::jinja
