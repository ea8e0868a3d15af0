#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokenizer/pre_tokenizer.h"

#include <pcre2.h>

#include <array>

#include "tokenizer/pre_tokenizer_patterns.h"
#include "tokenizer/utf8.h"

namespace strata {
namespace {

struct PreName {
  std::string_view name;
  PreTokenizerKind kind;
};

// tokenizer.ggml.pre values as llama.cpp's converter writes them, grouped by the pattern family
// whose splits they share (closely enough for their vocabularies). gpt-4o (gpt-oss), llama4,
// kanana2 and minimax-m2 are the names llama.cpp (ik_llama.cpp 8337e4c, llama-vocab.cpp) splits
// with the o200k pattern; glm4 (GLM-4.5, GLM-4.6) and chatglm-bpe (GLM-4) the names it splits
// with Llama 3's pattern, merges not skipped. deepseek-llm (DeepSeek LLM, V2), deepseek-coder and
// deepseek-v3 (V3, R1, V3.1) are DeepSeek's sequences; llama.cpp splits joyai-llm (what its
// converter writes for DeepSeek-V4-Flash) and hunyuan-dense with deepseek-v3's; hunyuan (Hunyuan-A13B)
// with Qwen2's. tekken is Mistral's
// vocabulary since Nemo (Small 3.x, Devstral, Magistral, Ministral); pixtral the name llama.cpp
// splits with Llama 3's pattern, both taking a piece that is a token whole and adding BOS; so is
// laguna (Poolside Laguna's vocabulary) split. granite-docling (Granite 4.0's vocabulary, as
// llama.cpp's converter names it) llama.cpp splits with GPT-2's pattern; lfm2 (Liquid LFM2's) as
// Llama 3's vocabulary, pieces whole and BOS added, as are falcon3 (Falcon 3's), falcon-h1 (Falcon-H1's)
// and midm-2.0 (Mi:dm 2.0's), as llama.cpp reads them; exaone4 (EXAONE 4.0's) as GPT-2's.
constexpr std::array<PreName, 52> kKnownNames = {{
    {"", PreTokenizerKind::kGpt2},           {"default", PreTokenizerKind::kGpt2},
    {"gpt2", PreTokenizerKind::kGpt2},       {"gpt-2", PreTokenizerKind::kGpt2},
    {"phi-2", PreTokenizerKind::kGpt2},      {"olmo", PreTokenizerKind::kGpt2},
    {"starcoder", PreTokenizerKind::kStarcoder}, {"refact", PreTokenizerKind::kStarcoder},
    {"mpt", PreTokenizerKind::kGpt2},        {"command-r", PreTokenizerKind::kStarcoder},
    {"cohere2_moe", PreTokenizerKind::kStarcoder}, {"exaone", PreTokenizerKind::kStarcoder},
    {"minerva-7b", PreTokenizerKind::kStarcoder},
    {"codeshell", PreTokenizerKind::kStarcoder}, {"jais", PreTokenizerKind::kGpt2},
    {"bloom", PreTokenizerKind::kGpt2},      {"gpt3-finnish", PreTokenizerKind::kGpt2},
    {"poro-chat", PreTokenizerKind::kGpt2},  {"llama-bpe", PreTokenizerKind::kLlama3},
    {"llama3", PreTokenizerKind::kLlama3},   {"llama-v3", PreTokenizerKind::kLlama3},
    {"falcon3", PreTokenizerKind::kLlama3},  {"smaug-bpe", PreTokenizerKind::kLlama3},
    {"dbrx", PreTokenizerKind::kLlama3},     {"glm4", PreTokenizerKind::kLlama3},
    {"chatglm-bpe", PreTokenizerKind::kLlama3},
    {"qwen2", PreTokenizerKind::kQwen2},     {"qwen3", PreTokenizerKind::kQwen2},
    {"deepseek-r1-qwen", PreTokenizerKind::kQwen2}, {"stablelm2", PreTokenizerKind::kQwen2},
    {"megrez", PreTokenizerKind::kQwen2},    {"hunyuan", PreTokenizerKind::kQwen2},    {"smollm", PreTokenizerKind::kStarcoder},
    {"qwen35", PreTokenizerKind::kQwen35},
    {"gpt-4o", PreTokenizerKind::kGpt4o},    {"llama4", PreTokenizerKind::kGpt4o},
    {"kanana2", PreTokenizerKind::kGpt4o},   {"minimax-m2", PreTokenizerKind::kGpt4o},
    {"deepseek-llm", PreTokenizerKind::kDeepseekLlm}, {"deepseek-coder", PreTokenizerKind::kDeepseekCoder},
    {"deepseek-v3", PreTokenizerKind::kDeepseekV3},   {"joyai-llm", PreTokenizerKind::kDeepseekV3},
    {"hunyuan-dense", PreTokenizerKind::kDeepseekV3}, {"kimi-k2", PreTokenizerKind::kKimiK2},
    {"tekken", PreTokenizerKind::kTekken},   {"pixtral", PreTokenizerKind::kLlama3},
    {"laguna", PreTokenizerKind::kLlama3},   {"granite-docling", PreTokenizerKind::kGpt2},
    {"lfm2", PreTokenizerKind::kLlama3},     {"exaone4", PreTokenizerKind::kGpt2},
    {"falcon-h1", PreTokenizerKind::kLlama3}, {"midm-2.0", PreTokenizerKind::kLlama3},
}};

}  // namespace

PreTokenizerChoice choose_pre_tokenizer(std::string_view pre_name) {
  for (const PreName& known : kKnownNames) {
    if (known.name == pre_name) {
      // Llama 3's BPE, and tiktoken's (the o200k vocabularies, Kimi K2's), take a piece that is a
      // token whole. On gpt-oss's vocabulary the merges reach every token anyway (each of the
      // 199,998 ranks, encoded alone, gives its own id either way), so there it only saves merging.
      // (llama.cpp merges Kimi K2's pieces; its converter derives the merges from tiktoken's ranks,
      // and a token those merges do not reach is one tiktoken still takes whole.) Mistral's
      // tekken is a tiktoken vocabulary too; llama.cpp takes tekken, pixtral and laguna pieces whole.
      const bool llama3 = pre_name == "llama-bpe" || pre_name == "llama3" || pre_name == "llama-v3" ||
                          pre_name == "lfm2" || pre_name == "falcon3" || pre_name == "falcon-h1" ||
                          pre_name == "midm-2.0";
      const bool mistral = pre_name == "tekken" || pre_name == "pixtral" || pre_name == "laguna";
      const bool tiktoken = pre_name == "gpt-4o" || pre_name == "kimi-k2";
      return {known.kind, llama3 || mistral || tiktoken, true, llama3 || mistral};
    }
  }
  return {PreTokenizerKind::kGpt2, false, false};
}

const char* pre_tokenizer_kind_name(PreTokenizerKind kind) {
  switch (kind) {
    case PreTokenizerKind::kGpt2: return "gpt2";
    case PreTokenizerKind::kLlama3: return "llama-bpe";
    case PreTokenizerKind::kQwen2: return "qwen2";
    case PreTokenizerKind::kQwen35: return "qwen35";
    case PreTokenizerKind::kGpt4o: return "gpt-4o";
    case PreTokenizerKind::kTekken: return "tekken";
    case PreTokenizerKind::kDeepseekLlm: return "deepseek-llm";
    case PreTokenizerKind::kDeepseekCoder: return "deepseek-coder";
    case PreTokenizerKind::kDeepseekV3: return "deepseek-v3";
    case PreTokenizerKind::kKimiK2: return "kimi-k2";
    case PreTokenizerKind::kStarcoder: return "starcoder";
  }
  return "gpt2";
}

void PreTokenizer::CodeDeleter::operator()(void* code) const {
  pcre2_code_free(static_cast<pcre2_code*>(code));
}

PreTokenizer::PreTokenizer(PreTokenizerKind kind, std::vector<Code> codes) : kind_(kind), codes_(std::move(codes)) {}

PreTokenizer::~PreTokenizer() = default;

namespace {

// Compiles one split pattern of `kind` (the index-th of its sequence), JIT-compiled when the JIT is
// there; it is an optimisation only, as pcre2_match interprets the same pattern without it.
Result<pcre2_code*> compile_split_pattern(PreTokenizerKind kind, size_t index, const char* pattern) {
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern), PCRE2_ZERO_TERMINATED,
                                   PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &error_code,
                                   &error_offset, nullptr);
  if (code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error_code, message, sizeof(message));
    return Status::Internal(std::string("pre-tokenizer pattern ") + pre_tokenizer_kind_name(kind) + " #" +
                            std::to_string(index) + " does not compile at offset " + std::to_string(error_offset) +
                            ": " + reinterpret_cast<const char*>(message));
  }
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
  return code;
}

// Appends the pieces of text under one pattern: its matches, and the text between them. On a
// failed match the rest of the text is one piece, so the pieces still tile the text.
Status split_by_pattern(const pcre2_code* code, std::string_view text, pcre2_match_data* match,
                        std::vector<std::string_view>* pieces) {
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  Status status = Status::Ok();
  size_t covered = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    int rc = pcre2_match(code, subject, text.size(), pos, 0, match, nullptr);
    // The JIT's fixed stack can run out on pathological input; the interpreter uses the heap.
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT) {
      rc = pcre2_match(code, subject, text.size(), pos, PCRE2_NO_JIT, match, nullptr);
    }
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(rc, message, sizeof(message));
      status = Status::Internal("pre-tokenizer: match failed at byte " + std::to_string(pos) + ": " +
                                reinterpret_cast<const char*>(message));
      break;
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match);
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
  return status;
}

}  // namespace

Result<PreTokenizer> PreTokenizer::Create(PreTokenizerKind kind) {
  const std::span<const char* const> patterns = pre_tokenizer_patterns(kind);
  std::vector<Code> codes;
  for (size_t i = 0; i < patterns.size(); ++i) {
    STRATA_ASSIGN_OR_RETURN(pcre2_code* code, compile_split_pattern(kind, i, patterns[i]));
    codes.emplace_back(code);
  }
  return PreTokenizer(kind, std::move(codes));
}

Status PreTokenizer::split(std::string_view text, std::vector<std::string_view>* pieces) const {
  // Only the whole match's offsets are read, so one pair serves every pattern.
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match(pcre2_match_data_create(1, nullptr),
                                                                            &pcre2_match_data_free);
  if (match == nullptr) {
    if (!text.empty()) pieces->push_back(text);
    return Status::ResourceExhausted("pre-tokenizer: no memory for match data");
  }
  const auto code = [this](size_t i) { return static_cast<const pcre2_code*>(codes_[i].get()); };
  const size_t first = pieces->size();
  Status status = split_by_pattern(code(0), text, match.get(), pieces);
  std::vector<std::string_view> previous;
  for (size_t i = 1; i < codes_.size(); ++i) {
    previous.assign(pieces->begin() + static_cast<std::ptrdiff_t>(first), pieces->end());
    pieces->resize(first);
    for (std::string_view piece : previous) {
      Status piece_status = split_by_pattern(code(i), piece, match.get(), pieces);
      if (status.ok()) status = std::move(piece_status);
    }
  }
  return status;
}

}  // namespace strata
