// BpeEncoder: BPE with ranked merges, applied to one pre-tokenized piece at a time, over one of two
// alphabets:
//   - bytes (tokenizer.ggml.model "gpt2"): a piece starts as one symbol per byte, the token of
//     that byte's character in the GPT-2 byte alphabet;
//   - characters (Gemma 4's "gemma4"): one symbol per UTF-8 character, the token spelled as it; a
//     character that is no token stays apart and comes out as its bytes' "<0xNN>" tokens.
// The adjacent pair with the lowest merge rank is merged (ties: the leftmost), until no
// adjacent pair has a merge. Merges are looked up by the pair of token ids, so merging never
// builds strings. With ignore_merges (Llama-3), a piece that is itself a token is emitted whole.
//
// Holds a reference to the Vocab, which must outlive it. Immutable after Create(); encode_piece()
// keeps its state in the caller's scratch, so one encoder serves any number of threads.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "tokenizer/byte_unicode.h"
#include "tokenizer/vocab.h"

namespace strata {

class BpeEncoder {
 public:
  // merges are "left right" in the byte alphabet, highest priority first. A merge whose parts or
  // result are not tokens can never fire and is dropped; a merge without a space is an error.
  static Result<BpeEncoder> Create(const Vocab& vocab, const ByteUnicodeMap& bytes,
                                   const std::vector<std::string>& merges, bool ignore_merges, int32_t unk_id);
  // The character alphabet (the merges spelled in the vocabulary's own UTF-8 text).
  static Result<BpeEncoder> CreateOverCharacters(const Vocab& vocab, const std::vector<std::string>& merges,
                                                 int32_t unk_id);

  // Appends the ids of piece (raw bytes). A byte whose character is not in the vocabulary (a
  // byte of a character that is not, over characters, without its "<0xNN>" token) becomes the
  // unknown token, or nothing when there is none.
  void encode_piece(std::string_view piece, std::vector<int32_t>* out) const;

  size_t n_merges() const { return n_merges_; }

 private:
  struct Merge {
    int32_t rank;
    int32_t id;
  };
  // A slot of the merge table: the pair's key (kEmptyKey: none) and its merge.
  struct MergeSlot {
    uint64_t key;
    Merge merge;
  };
  static constexpr uint64_t kEmptyKey = ~uint64_t{0};  // no pair of ids >= 0 has it
  BpeEncoder(const Vocab& vocab, const ByteUnicodeMap* bytes, bool ignore_merges, int32_t unk_id);
  Status add_merges(const std::vector<std::string>& merges);
  static uint64_t pair_key(int32_t left, int32_t right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
  }
  const Merge* find_merge(int32_t left, int32_t right) const;
  void merge_symbols(std::string_view piece, std::vector<int32_t>* out) const;

  const Vocab* vocab_;
  const ByteUnicodeMap* bytes_;  // nullptr over characters
  bool ignore_merges_;
  int32_t unk_id_;
  // Each byte's symbol over bytes; its "<0xNN>" token (or -1) over characters.
  std::array<int32_t, 256> byte_ids_;
  // Open addressing over pair keys, a power of two in size, at least twice the merges, probed
  // linearly: one array instead of a node per merge (a vocabulary has up to 450k).
  std::vector<MergeSlot> merges_;
  size_t n_merges_ = 0;
  size_t slot_of(uint64_t key) const;  // key's slot, or the empty one where it would go
};

}  // namespace strata
