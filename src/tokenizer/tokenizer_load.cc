// Building a Tokenizer from a TokenizerSpec: validation, defaults per model family, the encoder,
// the decode pieces and the per-token flags.
#include <array>
#include <string_view>
#include <utility>

#include "base/log.h"
#include "gguf/gguf_file.h"
#include "tokenizer/tokenizer.h"

namespace strata {
namespace {

// Control tokens that end a turn in the chat formats we know, beyond the ids the file names.
// <|return|> and <|call|> end a gpt-oss (harmony) reply: its answer, or a tool call; <|eot|> and
// <|eom|> a Llama 4 one; <｜end▁of▁sentence｜> a DeepSeek one (its files' EOS, which llama.cpp also
// takes as the end of a turn by its text; their <｜EOT｜> ends nothing there, nor here). Kimi K2
// ends a turn with <|im_end|>; its [EOS] and [EOT] end generation too, as in llama.cpp, whichever
// of them its file names. [e~[ is a MiniMax-M2 one (the EOS its files name; its turn openers ]~!b[
// and ]~b] end nothing). <turn|> ends a Gemma 4 turn, <|END_OF_TURN_TOKEN|> a Cohere one (Command
// R, R7B, A, North; their <|END_ACTION|> and <|END_TEXT|> end a part of the reply, not the reply).
constexpr std::array<std::string_view, 18> kEndOfTurnTexts = {
    "<|im_end|>", "<|eot_id|>",    "<|eom_id|>", "<|endoftext|>", "<|end_of_text|>", "</s>",
    "<|end|>",    "<end_of_turn>", "<|return|>", "<|call|>",      "<|eot|>",         "<|eom|>",
    "<｜end▁of▁sentence｜>", "[EOS]", "[EOT]", "[e~[", "<turn|>", "<|END_OF_TURN_TOKEN|>",
};
// Gemma 4 (tokenizer.ggml.model "gemma4") writes <|tool_response> after its tool calls, to be
// answered by the caller: it ends generation, although its files make it a user-defined token.
constexpr std::string_view kGemma4ToolResponse = "<|tool_response>";

// GLM's vocabularies (tokenizer.ggml.pre "glm4": GLM-4.5 and GLM-4.6; "chatglm-bpe": GLM-4). Their
// chat template writes "[gMASK]<sop>" itself, so no BOS is ever added, whatever the file says
// (llama.cpp drops their BOS id); a reply ends where the model opens the next turn: <|user|>, or
// <|observation|> after a tool call (the eot and eom ids of newer files, unnamed in older ones).
bool is_glm_vocab(std::string_view pre) { return pre == "glm4" || pre == "chatglm-bpe"; }
constexpr std::array<std::string_view, 2> kGlmEndOfTurnTexts = {"<|user|>", "<|observation|>"};

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// The byte a SentencePiece byte token "<0xNN>" stands for, or -1.
int byte_token_value(std::string_view text) {
  if (text.size() != 6 || !text.starts_with("<0x") || text[5] != '>') return -1;
  const int hi = hex_digit(text[3]);
  const int lo = hex_digit(text[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

Status check_id(const TokenizerSpec& spec, const char* key, int32_t id) {
  if (id < 0 || id < static_cast<int32_t>(spec.tokens.size())) return Status::Ok();
  return Status::Corrupt(std::string("tokenizer.ggml.") + key + " " + std::to_string(id) +
                         " is out of range: the vocabulary has " + std::to_string(spec.tokens.size()) +
                         " tokens");
}

Status validate(const TokenizerSpec& spec) {
  const size_t n = spec.tokens.size();
  if (n == 0) return Status::Corrupt("tokenizer.ggml.tokens is missing or empty");
  if (n > static_cast<size_t>(INT32_MAX)) return Status::Corrupt("tokenizer.ggml.tokens has too many tokens");
  if (!spec.scores.empty() && spec.scores.size() != n) {
    return Status::Corrupt("tokenizer.ggml.scores has " + std::to_string(spec.scores.size()) +
                           " entries but tokenizer.ggml.tokens has " + std::to_string(n));
  }
  if (!spec.token_types.empty() && spec.token_types.size() != n) {
    return Status::Corrupt("tokenizer.ggml.token_type has " + std::to_string(spec.token_types.size()) +
                           " entries but tokenizer.ggml.tokens has " + std::to_string(n));
  }
  for (size_t i = 0; i < spec.token_types.size(); ++i) {
    if (spec.token_types[i] < 0 || spec.token_types[i] > static_cast<int32_t>(TokenType::kByte)) {
      return Status::Corrupt("tokenizer.ggml.token_type[" + std::to_string(i) + "] = " +
                             std::to_string(spec.token_types[i]) + " is not a token type (0..6)");
    }
  }
  STRATA_RETURN_IF_ERROR(check_id(spec, "bos_token_id", spec.bos_id));
  STRATA_RETURN_IF_ERROR(check_id(spec, "eos_token_id", spec.eos_id));
  STRATA_RETURN_IF_ERROR(check_id(spec, "unknown_token_id", spec.unk_id));
  STRATA_RETURN_IF_ERROR(check_id(spec, "padding_token_id", spec.pad_id));
  STRATA_RETURN_IF_ERROR(check_id(spec, "eot_token_id", spec.eot_id));
  STRATA_RETURN_IF_ERROR(check_id(spec, "eom_token_id", spec.eom_id));
  if (spec.add_bos.value_or(false) && spec.bos_id < 0) {
    return Status::Corrupt("tokenizer.ggml.add_bos_token is true but there is no tokenizer.ggml.bos_token_id");
  }
  if (spec.add_eos.value_or(false) && spec.eos_id < 0) {
    return Status::Corrupt("tokenizer.ggml.add_eos_token is true but there is no tokenizer.ggml.eos_token_id");
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Tokenizer>> Tokenizer::FromGguf(const GgufFile& gguf) {
  STRATA_ASSIGN_OR_RETURN(TokenizerSpec spec, read_tokenizer_spec(gguf));
  Result<std::unique_ptr<Tokenizer>> tokenizer = FromSpec(std::move(spec));
  if (!tokenizer.ok()) {
    return Status(tokenizer.status().code(), gguf.path() + ": " + tokenizer.status().message());
  }
  return tokenizer;
}

Result<std::unique_ptr<Tokenizer>> Tokenizer::FromSpec(TokenizerSpec spec) {
  Kind kind;
  if (spec.model == "llama") {
    kind = Kind::kSentencePiece;
  } else if (spec.model == "gpt2") {
    kind = Kind::kByteBpe;
  } else if (spec.model == "gemma4") {
    kind = Kind::kCharacterBpe;
  } else {
    return Status::Unsupported("tokenizer.ggml.model \"" + spec.model +
                               "\" is not supported (supported: llama, gpt2, gemma4)");
  }
  STRATA_RETURN_IF_ERROR(validate(spec));
  std::unique_ptr<Tokenizer> tokenizer(new Tokenizer(spec, kind));
  STRATA_RETURN_IF_ERROR(tokenizer->configure(spec));
  return tokenizer;
}

// Takes the token table out of spec; configure() reads the rest.
Tokenizer::Tokenizer(TokenizerSpec& spec, Kind kind)
    : kind_(kind),
      vocab_(std::move(spec.tokens), std::move(spec.scores), std::move(spec.token_types)),
      matcher_(vocab_) {}

Status Tokenizer::configure(const TokenizerSpec& spec) {
  const bool spm = kind_ == Kind::kSentencePiece;
  bos_id_ = spec.bos_id;
  eos_id_ = spec.eos_id;
  eot_id_ = spec.eot_id;
  eom_id_ = spec.eom_id;
  unk_id_ = spec.unk_id;
  pad_id_ = spec.pad_id;
  STRATA_RETURN_IF_ERROR(build_encoder(spec));
  const bool family_bos = kind_ == Kind::kByteBpe && choose_pre_tokenizer(spec.pre).add_bos;
  // Gemma 4's files may say add_bos_token false; its model needs BOS all the same (llama.cpp too).
  const bool forced_bos = kind_ == Kind::kCharacterBpe;
  add_bos_ = (forced_bos || spec.add_bos.value_or(spm || family_bos)) && bos_id_ >= 0 && !is_glm_vocab(spec.pre);
  add_eos_ = spec.add_eos.value_or(false) && eos_id_ >= 0;
  add_space_prefix_ = spm && spec.add_space_prefix.value_or(true);
  build_pieces();
  build_flags(is_glm_vocab(spec.pre));
  return Status::Ok();
}

Status Tokenizer::build_encoder(const TokenizerSpec& spec) {
  if (kind_ == Kind::kSentencePiece) {
    spm_.emplace(vocab_, unk_id_);
    return Status::Ok();
  }
  if (spec.merges.empty()) {
    return Status::Corrupt("tokenizer.ggml.merges is missing or empty (needed by " + spec.model + " BPE)");
  }
  if (kind_ == Kind::kCharacterBpe) {
    STRATA_ASSIGN_OR_RETURN(BpeEncoder bpe, BpeEncoder::CreateOverCharacters(vocab_, spec.merges, unk_id_));
    bpe_.emplace(std::move(bpe));
    return Status::Ok();
  }
  const PreTokenizerChoice choice = choose_pre_tokenizer(spec.pre);
  if (!choice.exact) {
    STRATA_LOG_WARN("tokenizer.ggml.pre \"{}\" is unknown; splitting text as {}", spec.pre,
                    pre_tokenizer_kind_name(choice.kind));
  }
  pre_kind_ = choice.kind;
  STRATA_ASSIGN_OR_RETURN(PreTokenizer pre, PreTokenizer::Create(choice.kind));
  pre_.emplace(std::move(pre));
  STRATA_ASSIGN_OR_RETURN(BpeEncoder bpe,
                          BpeEncoder::Create(vocab_, bytes_, spec.merges, choice.ignore_merges, unk_id_));
  bpe_.emplace(std::move(bpe));
  return Status::Ok();
}

void Tokenizer::build_pieces() {
  static constexpr std::string_view kSpmSpace = "\xE2\x96\x81";  // U+2581
  pieces_.resize(vocab_.n_tokens());
  for (int32_t id = 0; id < vocab_.n_tokens(); ++id) {
    const std::string& text = vocab_.text(id);
    const TokenType type = vocab_.type(id);
    std::string& piece = pieces_[id];
    if (SpecialMatcher::is_matchable_type(type)) {
      piece = text;  // matched verbatim from text, so its text is its bytes
    } else if (kind_ == Kind::kByteBpe) {
      if (!bytes_.decode(text, &piece)) piece = text;
    } else if (type == TokenType::kByte) {
      const int value = byte_token_value(text);
      piece = value >= 0 ? std::string(1, static_cast<char>(value)) : text;
    } else {
      for (size_t pos = 0; pos < text.size();) {
        if (std::string_view(text).substr(pos).starts_with(kSpmSpace)) {
          piece.push_back(' ');
          pos += kSpmSpace.size();
        } else {
          piece.push_back(text[pos++]);
        }
      }
    }
  }
}

void Tokenizer::build_flags(bool glm) {
  flags_.assign(vocab_.n_tokens(), 0);
  for (int32_t id = 0; id < vocab_.n_tokens(); ++id) {
    const TokenType type = vocab_.type(id);
    if (type == TokenType::kControl || type == TokenType::kUnknown) flags_[id] |= kSpecial;
    if (SpecialMatcher::is_matchable_type(type)) flags_[id] |= kMatchedInText;
    if (type != TokenType::kControl) continue;
    for (std::string_view end_text : kEndOfTurnTexts) {
      if (vocab_.text(id) == end_text) flags_[id] |= kEog;
    }
  }
  for (int32_t id : {eos_id_, eot_id_, eom_id_}) {
    if (id >= 0) flags_[id] |= kEog;
  }
  if (kind_ == Kind::kCharacterBpe) {
    const int32_t id = vocab_.find(kGemma4ToolResponse);
    if (id >= 0) flags_[id] |= kEog;
  }
  for (std::string_view end_text : kGlmEndOfTurnTexts) {
    const int32_t id = glm ? vocab_.find(end_text) : -1;
    if (id >= 0) flags_[id] |= kEog;
  }
  // Harmony (gpt-oss's o200k_harmony vocabulary): <|end|> closes one message of a reply, its
  // analysis before the final answer, so with <|return|> and <|call|> ending the reply it is no
  // end of generation (llama.cpp's rule for this vocabulary, llama-vocab.cpp).
  const int32_t harmony_end = vocab_.find("<|end|>");
  const int32_t harmony_return = vocab_.find("<|return|>");
  const int32_t harmony_call = vocab_.find("<|call|>");
  if (harmony_end >= 0 && harmony_return >= 0 && harmony_call >= 0 && (flags_[harmony_return] & kEog) &&
      (flags_[harmony_call] & kEog)) {
    flags_[harmony_end] &= static_cast<uint8_t>(~kEog);
  }
  for (int32_t id = 0; id < vocab_.n_tokens(); ++id) {
    if (flags_[id] & kEog) eog_ids_.push_back(id);
  }
}

}  // namespace strata
