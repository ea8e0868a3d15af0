// SpmEncoder: SentencePiece-style BPE over a scored vocabulary (tokenizer.ggml.model "llama").
//
// Text starts as one symbol per UTF-8 character. The adjacent pair whose concatenation is a
// vocabulary token with the highest score is merged (ties: the leftmost pair), until no pair
// forms a token. A final symbol that is not a token becomes its bytes' <0xNN> tokens (byte
// fallback), or the unknown token when the vocabulary lacks one of them.
// Control, unknown and byte tokens never take part in merging: they cannot be spelled by text.
//
// Holds a reference to the Vocab, which must outlive it. Immutable; encode() keeps its state on
// the stack, so one encoder serves any number of threads.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tokenizer/vocab.h"

namespace strata {

class SpmEncoder {
 public:
  SpmEncoder(const Vocab& vocab, int32_t unk_id);

  // Appends the ids of text, which the caller has already space-escaped (' ' -> U+2581) and
  // prefixed as the model wants. Invalid UTF-8 bytes are symbols of their own (byte fallback).
  void encode(std::string_view text, std::vector<int32_t>* out) const;

  // The <0xNN> token of byte, or -1.
  int32_t byte_token(uint8_t byte) const { return byte_ids_[byte]; }

 private:
  bool mergeable(int32_t id) const;
  void emit_symbol(std::string_view piece, std::vector<int32_t>* out) const;

  const Vocab& vocab_;
  int32_t unk_id_;
  std::array<int32_t, 256> byte_ids_;
};

}  // namespace strata
