#include "tokenizer/pre_tokenizer_patterns.h"

#include <array>

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
// Qwen3.5's tokenizer.json: Qwen2's, with combining marks in words (so "नमस्ते" or a decomposed
// "café" stays one word instead of breaking at each vowel sign or accent).
constexpr const char* kQwen35Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N})"
    R"(| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// o200k (tokenizer.json of GPT-4o and gpt-oss): a word is an optional leading non-letter, then
// upper-case letters before lower-case ones (so "CamelCase" splits in two) with a contraction
// attached; digits in groups of up to three; a punctuation run takes the newlines and "/" after it.
constexpr const char* kGpt4oPattern =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+)"
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*)"
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// tekken (Mistral Nemo, Small 3.x, Devstral, Magistral, Ministral: the pattern of tekken.json and
// of their tokenizer.json files): o200k's words without the contractions ("WE'RE" is "WE", "'RE"),
// and single digits. Written as the original: llama.cpp's rewrite of the letter classes
// (llama-vocab.cpp) reads a case change only between ASCII letters, so it keeps "ПриветМир" whole
// where this splits "Привет", "Мир" as Mistral's own tokenizer does.
constexpr const char* kTekkenPattern =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+)"
    R"(|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*)"
    R"(|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// DeepSeek's families are a Sequence of Split pre-tokenizers in their tokenizer.json files (the
// regex lists of llama.cpp's llama-vocab.cpp): each pattern isolates its matches within the pieces
// of the one before. The character ranges are written as code points.

// A CJK run of deepseek-llm and deepseek-coder: the CJK Unified Ideographs up to U+9FA5, everything
// from U+0800 to U+4E00 (Samaritan to the CJK symbols, kana and Extension A), Hangul to U+D7FF.
constexpr const char* kDeepseekCjkPattern = R"([\x{4E00}-\x{9FA5}\x{0800}-\x{4E00}\x{AC00}-\x{D7FF}]+)";

// deepseek-llm (DeepSeek LLM, DeepSeek-V2 and V2-Lite): newlines alone; a word of cased letters
// (Lu, Ll, Lt: Latin, Greek, Cyrillic, Armenian, Georgian, Cherokee, Glagolitic, Coptic, ...; not
// the other letters) with one whitespace before it; a run of ASCII, full-width and CJK
// punctuation with one whitespace before it; trailing whitespace; a CJK run; a run of digits.
// What no pattern takes (a lone space between CJK, other scripts' letters) stays between them.
constexpr std::array<const char*, 6> kDeepseekLlmPatterns = {
    R"([\r\n])",
    R"(\s?[)"
    R"(A-Za-z\x{B5}\x{C0}-\x{D6}\x{D8}-\x{F6}\x{F8}-\x{1BA}\x{1BC}-\x{1BF}\x{1C4}-\x{293}\x{295}-\x{2AF})"
    R"(\x{370}-\x{373}\x{376}\x{377}\x{37B}-\x{37D}\x{37F}\x{386}\x{388}-\x{38A}\x{38C}\x{38E}-\x{3A1})"
    R"(\x{3A3}-\x{3F5}\x{3F7}-\x{481}\x{48A}-\x{52F}\x{531}-\x{556}\x{10A0}-\x{10C5}\x{13A0}-\x{13F5})"
    R"(\x{13F8}-\x{13FD}\x{1C90}-\x{1CBA}\x{1CBD}-\x{1CBF}\x{1D00}-\x{1D2B}\x{1D6B}-\x{1D77}\x{1D79}-\x{1D9A})"
    R"(\x{1E00}-\x{1F15}\x{1F18}-\x{1F1D}\x{1F20}-\x{1F45}\x{1F48}-\x{1F4D}\x{1F50}-\x{1F57}\x{1F59}\x{1F5B})"
    R"(\x{1F5D}\x{1F5F}-\x{1F7D}\x{1F80}-\x{1FB4}\x{1FB6}-\x{1FBC}\x{1FBE}\x{1FC2}-\x{1FC4}\x{1FC6}-\x{1FCC})"
    R"(\x{1FD0}-\x{1FD3}\x{1FD6}-\x{1FDB}\x{1FE0}-\x{1FEC}\x{1FF2}-\x{1FF4}\x{1FF6}-\x{1FFC}\x{2102}\x{2107})"
    R"(\x{210A}-\x{2113}\x{2115}\x{2119}-\x{211D}\x{2124}\x{2126}\x{2128}\x{212A}-\x{212D}\x{212F}-\x{2134})"
    R"(\x{2139}\x{213C}-\x{213F}\x{2145}-\x{2149}\x{214E}\x{2183}\x{2184}\x{2C00}-\x{2C7B}\x{2C7E}-\x{2CE4})"
    R"(\x{2CEB}-\x{2CEE}\x{2CF2}\x{2CF3}\x{A640}-\x{A66D}\x{A680}-\x{A69B}\x{A722}-\x{A76F}\x{A771}-\x{A787})"
    R"(\x{A78B}-\x{A78E}\x{AB70}-\x{ABBF}\x{FB00}-\x{FB06}\x{FB13}-\x{FB17}\x{FF21}-\x{FF3A}\x{FF41}-\x{FF5A})"
    R"(\x{10400}-\x{1044F}\x{104B0}-\x{104D3}\x{104D8}-\x{104FB}\x{10C80}-\x{10CB2}\x{10CC0}-\x{10CF2})"
    R"(\x{118A0}-\x{118DF}\x{1E900}-\x{1E943}]+)",
    // ASCII punctuation and symbols, their full-width forms, the quotation marks U+2018-U+201F
    // and the ideographic space, comma and full stop.
    R"(\s?[!-/:-~\x{FF01}-\x{FF0F}\x{FF1A}-\x{FF5E}\x{2018}-\x{201F}\x{3000}-\x{3002}]+)",
    // Newlines are pieces of their own by now, so "$" is the end of the piece.
    R"(\s+$)",
    kDeepseekCjkPattern,
    R"(\p{N}+)",
};

// deepseek-coder (DeepSeek Coder 1.x): as deepseek-llm with any letters (\p{L}) and any
// punctuation (\p{P}), and single digits.
constexpr std::array<const char*, 5> kDeepseekCoderPatterns = {
    R"([\r\n])", R"(\s?\p{L}+)", R"(\s?\p{P}+)", kDeepseekCjkPattern, R"(\p{N})",
};

// deepseek-v3 (DeepSeek-V3, R1, V3.1): digits in groups of up to three; a run of ideographs and
// kana; then a GPT-style pattern where an ASCII punctuation character joins the ASCII word after it,
// a word takes its marks and one leading character that is no letter, punctuation, symbol or newline
// (a space), and a punctuation or symbol run takes one space before and the newlines after it.
constexpr std::array<const char*, 3> kDeepseekV3Patterns = {
    R"(\p{N}{1,3})",
    R"([\x{4E00}-\x{9FA5}\x{3040}-\x{309F}\x{30A0}-\x{30FF}]+)",
    R"([!-/:-@\[-`{-~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*)"
    R"(|\s*[\r\n]+|\s+(?!\S)|\s+)",
};

// kimi-k2 (Kimi K2): the tiktoken pattern of its tokenization_kimi.py. Han runs are pieces of their
// own, and the o200k-style words around them never take a Han character: the original writes each
// letter class as an intersection, [\p{Lu}...&&[^\p{Han}]], which PCRE2 10.42 lacks, so here a
// look-ahead excludes Han before the class. \p{sc:Han} is the Script property, as the Rust regex
// crate that tiktoken uses reads a bare \p{Han}; PCRE2 reads \p{Han} as Script_Extensions, which
// also holds the ideographic comma and full stop.
constexpr const char* kKimiK2Pattern =
    R"(\p{sc:Han}+)"
    R"(|[^\r\n\p{L}\p{N}]?(?:(?!\p{sc:Han})[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}])*)"
    R"((?:(?!\p{sc:Han})[\p{Ll}\p{Lm}\p{Lo}\p{M}])+(?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|[^\r\n\p{L}\p{N}]?(?:(?!\p{sc:Han})[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}])+)"
    R"((?:(?!\p{sc:Han})[\p{Ll}\p{Lm}\p{Lo}\p{M}])*(?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// starcoder, command-r, smollm (and refact, codeshell, exaone, minerva-7b, as llama.cpp groups them):
// Hugging Face's Digits(individual_digits) before the byte-level split, so a number is its digits.
constexpr std::array<const char*, 2> kStarcoderPatterns = {R"(\p{N})", kGpt2Pattern};

constexpr std::array<const char*, 1> kGpt2Patterns = {kGpt2Pattern};
constexpr std::array<const char*, 1> kLlama3Patterns = {kLlama3Pattern};
constexpr std::array<const char*, 1> kQwen2Patterns = {kQwen2Pattern};
constexpr std::array<const char*, 1> kQwen35Patterns = {kQwen35Pattern};
constexpr std::array<const char*, 1> kGpt4oPatterns = {kGpt4oPattern};
constexpr std::array<const char*, 1> kTekkenPatterns = {kTekkenPattern};
constexpr std::array<const char*, 1> kKimiK2Patterns = {kKimiK2Pattern};

}  // namespace

std::span<const char* const> pre_tokenizer_patterns(PreTokenizerKind kind) {
  switch (kind) {
    case PreTokenizerKind::kGpt2: return kGpt2Patterns;
    case PreTokenizerKind::kLlama3: return kLlama3Patterns;
    case PreTokenizerKind::kQwen2: return kQwen2Patterns;
    case PreTokenizerKind::kQwen35: return kQwen35Patterns;
    case PreTokenizerKind::kGpt4o: return kGpt4oPatterns;
    case PreTokenizerKind::kTekken: return kTekkenPatterns;
    case PreTokenizerKind::kDeepseekLlm: return kDeepseekLlmPatterns;
    case PreTokenizerKind::kDeepseekCoder: return kDeepseekCoderPatterns;
    case PreTokenizerKind::kDeepseekV3: return kDeepseekV3Patterns;
    case PreTokenizerKind::kKimiK2: return kKimiK2Patterns;
    case PreTokenizerKind::kStarcoder: return kStarcoderPatterns;
  }
  return kGpt2Patterns;
}

}  // namespace strata
