// `strata tokenize`: shows how a model's tokenizer splits a text.
//   strata tokenize -m model.gguf "Hello world"     one token per line: id and quoted piece
//   strata tokenize -m model.gguf -f prompt.txt     the text is the file's exact bytes
//   strata tokenize -m model.gguf --ids "Hi"        ids only, space-separated on one line
// BOS is added only with --bos. Special tokens spelled in the text (<|im_end|>) are matched
// unless --no-parse-special.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "gguf/gguf_file.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

namespace strata::cli {
namespace {

struct TokenizeFlags {
  std::string model_path;
  std::string text;
  std::string text_file;
  bool ids_only = false;
  bool bos = false;
  bool no_parse_special = false;
};

// A piece as a double-quoted string: valid UTF-8 characters as they are, quotes, backslashes and
// control characters escaped, and bytes that are not whole characters as \xNN.
std::string quote_piece(std::string_view piece) {
  std::string out = "\"";
  for (size_t pos = 0; pos < piece.size();) {
    const Utf8Scan scan = utf8_scan(piece, pos);
    const auto byte = static_cast<uint8_t>(piece[pos]);
    if (scan.step == Utf8Step::kComplete && scan.length > 1) {
      out.append(piece.substr(pos, scan.length));
      pos += scan.length;
      continue;
    }
    switch (byte) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (byte >= 0x20 && byte < 0x7F) {
          out.push_back(static_cast<char>(byte));
        } else {
          char hex[8];
          std::snprintf(hex, sizeof(hex), "\\x%02X", byte);
          out += hex;
        }
    }
    ++pos;
  }
  return out + "\"";
}

// Reads with stdio so that a path that opens but cannot be read (a directory) is an error,
// not an empty text. On failure *error says why.
bool read_whole_file(const std::string& path, std::string* out, std::string* error) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    *error = std::strerror(errno);
    return false;
  }
  out->clear();
  char chunk[1 << 16];
  size_t n_read = 0;
  while ((n_read = std::fread(chunk, 1, sizeof(chunk), file)) > 0) out->append(chunk, n_read);
  const bool ok = std::ferror(file) == 0;
  if (!ok) *error = std::strerror(errno);
  std::fclose(file);
  return ok;
}

int run_tokenize(const TokenizeFlags& flags, bool have_text) {
  if (have_text == !flags.text_file.empty()) {
    std::fprintf(stderr, "tokenize: give the text either as an argument or with -f FILE (exactly one)\n");
    return 2;
  }
  std::string text = flags.text;
  std::string read_error;
  if (!flags.text_file.empty() && !read_whole_file(flags.text_file, &text, &read_error)) {
    std::fprintf(stderr, "tokenize: cannot read %s: %s\n", flags.text_file.c_str(), read_error.c_str());
    return 1;
  }
  Result<GgufFile> gguf = GgufFile::Open(flags.model_path);
  if (!gguf.ok()) {
    std::fprintf(stderr, "tokenize: %s\n", gguf.status().ToString().c_str());
    return 1;
  }
  Result<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::FromGguf(*gguf);
  if (!tokenizer.ok()) {
    std::fprintf(stderr, "tokenize: %s\n", tokenizer.status().ToString().c_str());
    return 1;
  }
  const Tokenizer& tok = **tokenizer;
  std::vector<int32_t> ids;
  if (flags.bos) {
    if (tok.bos() < 0) {
      std::fprintf(stderr, "tokenize: %s has no BOS token; --bos ignored\n", flags.model_path.c_str());
    } else {
      ids.push_back(tok.bos());
    }
  }
  tok.encode_into(text, /*add_special=*/false, /*parse_special=*/!flags.no_parse_special, &ids);
  if (flags.ids_only) {
    for (size_t i = 0; i < ids.size(); ++i) std::printf(i == 0 ? "%d" : " %d", ids[i]);
    std::printf("\n");
    return 0;
  }
  for (int32_t id : ids) std::printf("%6d %s\n", id, quote_piece(tok.piece(id)).c_str());
  return 0;
}

}  // namespace

void add_tokenize_command(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("tokenize", "Show the token ids and pieces of a text");
  auto flags = std::make_shared<TokenizeFlags>();
  sub->add_option("-m,--model", flags->model_path, "GGUF file with a tokenizer")->required();
  auto* text = sub->add_option("text", flags->text, "the text to tokenize");
  sub->add_option("-f,--file", flags->text_file, "read the text from this file (exact bytes)");
  sub->add_flag("--ids", flags->ids_only, "print only the ids, space-separated on one line");
  sub->add_flag("--bos", flags->bos, "put the model's BOS token first");
  sub->add_flag("--no-parse-special", flags->no_parse_special, "treat special-token text as plain text");
  sub->callback([flags, text, exit_code] { *exit_code = run_tokenize(*flags, text->count() > 0); });
}

}  // namespace strata::cli
