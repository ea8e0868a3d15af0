#include "tokenizer/spm_encoder.h"

#include <cstdio>
#include <queue>

#include "tokenizer/utf8.h"

namespace strata {
namespace {

struct SpmSymbol {
  uint32_t begin;
  uint32_t n_bytes;  // 0 once merged into its left neighbour
  int32_t prev;
  int32_t next;
};

struct SpmCandidate {
  float score;
  int32_t left;
  uint32_t n_bytes;  // of the merged piece; a mismatch later means the pair has changed
};

struct SpmLowerPriority {
  bool operator()(const SpmCandidate& a, const SpmCandidate& b) const {
    if (a.score != b.score) return a.score < b.score;
    return a.left > b.left;
  }
};

using CandidateQueue = std::priority_queue<SpmCandidate, std::vector<SpmCandidate>, SpmLowerPriority>;

}  // namespace

SpmEncoder::SpmEncoder(const Vocab& vocab, int32_t unk_id) : vocab_(vocab), unk_id_(unk_id) {
  byte_ids_.fill(-1);
  for (int byte = 0; byte < 256; ++byte) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", byte);
    const int32_t id = vocab_.find(name);
    if (id >= 0 && vocab_.type(id) == TokenType::kByte) byte_ids_[byte] = id;
  }
}

bool SpmEncoder::mergeable(int32_t id) const {
  const TokenType type = vocab_.type(id);
  return type != TokenType::kControl && type != TokenType::kUnknown && type != TokenType::kByte;
}

void SpmEncoder::emit_symbol(std::string_view piece, std::vector<int32_t>* out) const {
  const int32_t id = vocab_.find(piece);
  if (id >= 0 && mergeable(id)) {
    out->push_back(id);
    return;
  }
  for (char c : piece) {
    if (byte_ids_[static_cast<uint8_t>(c)] < 0) {
      if (unk_id_ >= 0) out->push_back(unk_id_);
      return;
    }
  }
  for (char c : piece) out->push_back(byte_ids_[static_cast<uint8_t>(c)]);
}

void SpmEncoder::encode(std::string_view text, std::vector<int32_t>* out) const {
  std::vector<SpmSymbol> symbols;
  for (size_t pos = 0; pos < text.size();) {
    const size_t n = utf8_char_length(text, pos);
    const auto index = static_cast<int32_t>(symbols.size());
    symbols.push_back({static_cast<uint32_t>(pos), static_cast<uint32_t>(n), index - 1, index + 1});
    pos += n;
  }
  if (symbols.empty()) return;
  symbols.back().next = -1;

  CandidateQueue queue;
  auto consider = [&](int32_t left, int32_t right) {
    if (left < 0 || right < 0) return;
    const uint32_t n_bytes = symbols[left].n_bytes + symbols[right].n_bytes;
    const int32_t id = vocab_.find(text.substr(symbols[left].begin, n_bytes));
    if (id < 0 || !mergeable(id)) return;
    queue.push({vocab_.score(id), left, n_bytes});
  };
  for (int32_t i = 0; i + 1 < static_cast<int32_t>(symbols.size()); ++i) consider(i, i + 1);

  while (!queue.empty()) {
    const SpmCandidate c = queue.top();
    queue.pop();
    SpmSymbol& left = symbols[c.left];
    if (left.n_bytes == 0 || left.next < 0) continue;
    SpmSymbol& right = symbols[left.next];
    if (left.n_bytes + right.n_bytes != c.n_bytes) continue;
    left.n_bytes = c.n_bytes;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = c.left;
    right.n_bytes = 0;
    consider(left.prev, c.left);
    consider(c.left, left.next);
  }

  for (int32_t i = 0; i >= 0; i = symbols[i].next) {
    emit_symbol(text.substr(symbols[i].begin, symbols[i].n_bytes), out);
  }
}

}  // namespace strata
