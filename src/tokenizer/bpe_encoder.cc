#include "tokenizer/bpe_encoder.h"

#include <bit>
#include <queue>

#include "tokenizer/utf8.h"

namespace strata {
namespace {

struct BpeSymbol {
  int32_t id;  // -1 when the byte's (or the character's) text is not a token
  int32_t prev;
  int32_t next;
  bool alive;
  int32_t start;   // the symbol's first byte in the piece, while it is one character
  int32_t length;
};

struct BpeCandidate {
  int32_t rank;
  int32_t left;
  int32_t right;
  int32_t left_id;   // the ids when the candidate was made; a change means it is stale
  int32_t right_id;
  int32_t merged_id;
};

struct BpeLowerPriority {
  bool operator()(const BpeCandidate& a, const BpeCandidate& b) const {
    if (a.rank != b.rank) return a.rank > b.rank;
    return a.left > b.left;
  }
};

}  // namespace

BpeEncoder::BpeEncoder(const Vocab& vocab, const ByteUnicodeMap* bytes, bool ignore_merges, int32_t unk_id)
    : vocab_(&vocab), bytes_(bytes), ignore_merges_(ignore_merges), unk_id_(unk_id) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (int byte = 0; byte < 256; ++byte) {
    if (bytes != nullptr) {
      byte_ids_[byte] = vocab.find(bytes->encode_byte(static_cast<uint8_t>(byte)));
    } else {
      const char name[] = {'<', '0', 'x', kHex[byte >> 4], kHex[byte & 15], '>'};
      byte_ids_[byte] = vocab.find(std::string_view(name, sizeof(name)));
    }
  }
}

Result<BpeEncoder> BpeEncoder::Create(const Vocab& vocab, const ByteUnicodeMap& bytes,
                                      const std::vector<std::string>& merges, bool ignore_merges,
                                      int32_t unk_id) {
  BpeEncoder encoder(vocab, &bytes, ignore_merges, unk_id);
  STRATA_RETURN_IF_ERROR(encoder.add_merges(merges));
  return encoder;
}

Result<BpeEncoder> BpeEncoder::CreateOverCharacters(const Vocab& vocab, const std::vector<std::string>& merges,
                                                    int32_t unk_id) {
  BpeEncoder encoder(vocab, nullptr, false, unk_id);
  STRATA_RETURN_IF_ERROR(encoder.add_merges(merges));
  return encoder;
}

Status BpeEncoder::add_merges(const std::vector<std::string>& merges) {
  const Vocab& vocab = *vocab_;
  merges_.assign(std::bit_ceil(2 * merges.size() + 2), MergeSlot{kEmptyKey, {}});
  std::string joined;
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const std::string& merge = merges[rank];
    // Search from 1: the left part is never empty, so a leading space belongs to it.
    const size_t space = merge.find(' ', 1);
    if (space == std::string::npos) {
      return Status::Corrupt("tokenizer.ggml.merges[" + std::to_string(rank) + "] \"" + merge +
                             "\" is not two tokens separated by a space");
    }
    const std::string_view left(merge.data(), space);
    const std::string_view right(merge.data() + space + 1, merge.size() - space - 1);
    joined.assign(left).append(right);
    const int32_t left_id = vocab.find(left);
    const int32_t right_id = vocab.find(right);
    const int32_t merged_id = vocab.find(joined);
    if (left_id < 0 || right_id < 0 || merged_id < 0) continue;
    // A pair listed twice keeps its first (lower) rank.
    MergeSlot& slot = merges_[slot_of(pair_key(left_id, right_id))];
    if (slot.key != kEmptyKey) continue;
    slot = MergeSlot{pair_key(left_id, right_id), Merge{static_cast<int32_t>(rank), merged_id}};
    ++n_merges_;
  }
  return Status::Ok();
}

size_t BpeEncoder::slot_of(uint64_t key) const {
  const size_t mask = merges_.size() - 1;
  // Fibonacci hashing: the pair's two ids mixed into the high bits, which index the table.
  size_t s = static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
  while (merges_[s].key != kEmptyKey && merges_[s].key != key) s = (s + 1) & mask;
  return s;
}

const BpeEncoder::Merge* BpeEncoder::find_merge(int32_t left, int32_t right) const {
  if (left < 0 || right < 0) return nullptr;
  const MergeSlot& slot = merges_[slot_of(pair_key(left, right))];
  return slot.key == kEmptyKey ? nullptr : &slot.merge;
}

void BpeEncoder::encode_piece(std::string_view piece, std::vector<int32_t>* out) const {
  if (piece.empty()) return;
  if (ignore_merges_ && piece.size() > 1) {
    std::string mapped;
    bytes_->encode(piece, &mapped);
    const int32_t id = vocab_->find(mapped);
    if (id >= 0) {
      out->push_back(id);
      return;
    }
  }
  merge_symbols(piece, out);
}

void BpeEncoder::merge_symbols(std::string_view piece, std::vector<int32_t>* out) const {
  // One symbol per byte, or per character: symbol i covers piece[start, start + length).
  std::vector<BpeSymbol> symbols;
  for (size_t pos = 0; pos < piece.size();) {
    const size_t length = bytes_ != nullptr ? 1 : utf8_char_length(piece, pos);
    const int32_t id =
        bytes_ != nullptr ? byte_ids_[static_cast<uint8_t>(piece[pos])] : vocab_->find(piece.substr(pos, length));
    const auto i = static_cast<int32_t>(symbols.size());
    symbols.push_back({id, i - 1, -1, true, static_cast<int32_t>(pos), static_cast<int32_t>(length)});
    if (i > 0) symbols[i - 1].next = i;
    pos += length;
  }
  const auto n = static_cast<int32_t>(symbols.size());
  std::priority_queue<BpeCandidate, std::vector<BpeCandidate>, BpeLowerPriority> queue;
  auto consider = [&](int32_t left, int32_t right) {
    if (left < 0 || right < 0) return;
    const Merge* merge = find_merge(symbols[left].id, symbols[right].id);
    if (merge == nullptr) return;
    queue.push({merge->rank, left, right, symbols[left].id, symbols[right].id, merge->id});
  };
  for (int32_t i = 0; i + 1 < n; ++i) consider(i, i + 1);

  while (!queue.empty()) {
    const BpeCandidate c = queue.top();
    queue.pop();
    BpeSymbol& left = symbols[c.left];
    if (!left.alive || left.next != c.right || left.id != c.left_id) continue;
    BpeSymbol& right = symbols[c.right];
    if (right.id != c.right_id) continue;
    left.id = c.merged_id;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = c.left;
    right.alive = false;
    consider(left.prev, c.left);
    consider(c.left, left.next);
  }

  for (int32_t i = 0; i >= 0; i = symbols[i].next) {
    if (symbols[i].id >= 0) {
      out->push_back(symbols[i].id);
    } else if (bytes_ == nullptr) {  // a character that is no token: its bytes' tokens
      for (int32_t b = symbols[i].start; b < symbols[i].start + symbols[i].length; ++b) {
        const int32_t byte_id = byte_ids_[static_cast<uint8_t>(piece[static_cast<size_t>(b)])];
        if (byte_id >= 0 || unk_id_ >= 0) out->push_back(byte_id >= 0 ? byte_id : unk_id_);
      }
    } else if (unk_id_ >= 0) {
      out->push_back(unk_id_);
    }
  }
}

}  // namespace strata
