#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokenizer/pre_tokenizer.h"

#include <pcre2.h>

#include <array>

#include "tokenizer/utf8.h"

namespace strata {
namespace {

// The split patterns of the model families, as their tokenizer.json files define them.
// Contractions come first so "'s" is not split as punctuation + letter; "\s+(?!\S)" leaves the
// last space of a run to prefix the following word.
constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr const char* kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3})"
    R"(| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N})"
    R"(| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// o200k (tokenizer.json of GPT-4o and gpt-oss): a word is an optional leading non-letter, then
// upper-case letters before lower-case ones (so "CamelCase" splits in two) with a contraction
// attached; digits in groups of up to three; a punctuation run takes the newlines and "/" after it.
constexpr const char* kGpt4oPattern =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+)"
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*)"
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

const char* pattern_of(PreTokenizerKind kind) {
  switch (kind) {
    case PreTokenizerKind::kGpt2: return kGpt2Pattern;
    case PreTokenizerKind::kLlama3: return kLlama3Pattern;
    case PreTokenizerKind::kQwen2: return kQwen2Pattern;
    case PreTokenizerKind::kGpt4o: return kGpt4oPattern;
  }
  return kGpt2Pattern;
}

struct PreName {
  std::string_view name;
  PreTokenizerKind kind;
};

// tokenizer.ggml.pre values as llama.cpp's converter writes them, grouped by the pattern family
// whose splits they share (closely enough for their vocabularies). gpt-4o (gpt-oss), llama4,
// kanana2 and minimax-m2 are the names llama.cpp (ik_llama.cpp 8337e4c, llama-vocab.cpp) splits
// with the o200k pattern; glm4 (GLM-4.5, GLM-4.6) and chatglm-bpe (GLM-4) the names it splits
// with Llama 3's pattern, merges not skipped.
constexpr std::array<PreName, 33> kKnownNames = {{
    {"", PreTokenizerKind::kGpt2},           {"default", PreTokenizerKind::kGpt2},
    {"gpt2", PreTokenizerKind::kGpt2},       {"gpt-2", PreTokenizerKind::kGpt2},
    {"phi-2", PreTokenizerKind::kGpt2},      {"olmo", PreTokenizerKind::kGpt2},
    {"starcoder", PreTokenizerKind::kGpt2},  {"refact", PreTokenizerKind::kGpt2},
    {"mpt", PreTokenizerKind::kGpt2},        {"command-r", PreTokenizerKind::kGpt2},
    {"codeshell", PreTokenizerKind::kGpt2},  {"jais", PreTokenizerKind::kGpt2},
    {"bloom", PreTokenizerKind::kGpt2},      {"gpt3-finnish", PreTokenizerKind::kGpt2},
    {"poro-chat", PreTokenizerKind::kGpt2},  {"llama-bpe", PreTokenizerKind::kLlama3},
    {"llama3", PreTokenizerKind::kLlama3},   {"llama-v3", PreTokenizerKind::kLlama3},
    {"falcon3", PreTokenizerKind::kLlama3},  {"smaug-bpe", PreTokenizerKind::kLlama3},
    {"dbrx", PreTokenizerKind::kLlama3},     {"glm4", PreTokenizerKind::kLlama3},
    {"chatglm-bpe", PreTokenizerKind::kLlama3},
    {"qwen2", PreTokenizerKind::kQwen2},     {"qwen3", PreTokenizerKind::kQwen2},
    {"deepseek-r1-qwen", PreTokenizerKind::kQwen2}, {"stablelm2", PreTokenizerKind::kQwen2},
    {"megrez", PreTokenizerKind::kQwen2},    {"smollm", PreTokenizerKind::kGpt2},
    {"gpt-4o", PreTokenizerKind::kGpt4o},    {"llama4", PreTokenizerKind::kGpt4o},
    {"kanana2", PreTokenizerKind::kGpt4o},   {"minimax-m2", PreTokenizerKind::kGpt4o},
}};

}  // namespace

PreTokenizerChoice choose_pre_tokenizer(std::string_view pre_name) {
  for (const PreName& known : kKnownNames) {
    if (known.name == pre_name) {
      // Llama 3's BPE, and tiktoken's (the o200k vocabularies), take a piece that is a token whole.
      // On gpt-oss's vocabulary the merges reach every token anyway (each of the 199,998 ranks,
      // encoded alone, gives its own id either way), so there it only saves merging.
      const bool llama3 = pre_name == "llama-bpe" || pre_name == "llama3" || pre_name == "llama-v3";
      return {known.kind, llama3 || pre_name == "gpt-4o", true};
    }
  }
  return {PreTokenizerKind::kGpt2, false, false};
}

const char* pre_tokenizer_kind_name(PreTokenizerKind kind) {
  switch (kind) {
    case PreTokenizerKind::kGpt2: return "gpt2";
    case PreTokenizerKind::kLlama3: return "llama-bpe";
    case PreTokenizerKind::kQwen2: return "qwen2";
    case PreTokenizerKind::kGpt4o: return "gpt-4o";
  }
  return "gpt2";
}

void PreTokenizer::CodeDeleter::operator()(void* code) const {
  pcre2_code_free(static_cast<pcre2_code*>(code));
}

PreTokenizer::PreTokenizer(PreTokenizerKind kind, void* code) : kind_(kind), code_(code) {}

PreTokenizer::~PreTokenizer() = default;

Result<PreTokenizer> PreTokenizer::Create(PreTokenizerKind kind) {
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  const char* pattern = pattern_of(kind);
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern), PCRE2_ZERO_TERMINATED,
                                   PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &error_code,
                                   &error_offset, nullptr);
  if (code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error_code, message, sizeof(message));
    return Status::Internal(std::string("pre-tokenizer pattern ") + pre_tokenizer_kind_name(kind) +
                            " does not compile at offset " + std::to_string(error_offset) + ": " +
                            reinterpret_cast<const char*>(message));
  }
  // JIT is an optimisation only; without it pcre2_match interprets the same pattern.
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
  return PreTokenizer(kind, code);
}

Status PreTokenizer::split(std::string_view text, std::vector<std::string_view>* pieces) const {
  auto* code = static_cast<const pcre2_code*>(code_.get());
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match(
      pcre2_match_data_create_from_pattern(code, nullptr), &pcre2_match_data_free);
  if (match == nullptr) return Status::ResourceExhausted("pre-tokenizer: no memory for match data");
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t covered = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    int rc = pcre2_match(code, subject, text.size(), pos, 0, match.get(), nullptr);
    // The JIT's fixed stack can run out on pathological input; the interpreter uses the heap.
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT) {
      rc = pcre2_match(code, subject, text.size(), pos, PCRE2_NO_JIT, match.get(), nullptr);
    }
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(rc, message, sizeof(message));
      return Status::Internal("pre-tokenizer: match failed at byte " + std::to_string(pos) + ": " +
                              reinterpret_cast<const char*>(message));
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.get());
    const size_t begin = ovector[0];
    const size_t end = ovector[1];
    if (end == begin) {  // no alternative matches empty, but never loop if one did
      if (begin >= text.size()) break;
      pos = begin + utf8_char_length(text, begin);
      continue;
    }
    if (begin > covered) pieces->push_back(text.substr(covered, begin - covered));
    pieces->push_back(text.substr(begin, end - begin));
    covered = pos = end;
  }
  if (covered < text.size()) pieces->push_back(text.substr(covered));
  return Status::Ok();
}

}  // namespace strata
