#include "tokenizer/stream_decoder.h"

#include "tokenizer/utf8.h"

namespace strata {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

StreamDecoder::StreamDecoder(const Tokenizer& tokenizer, Options options) : tokenizer_(tokenizer) {
  options_.skip_special = options.skip_special;
  options_.strip_space_prefix = options.strip_space_prefix;
  strip_next_ = options.strip_space_prefix;
}

std::string StreamDecoder::push(int32_t id) {
  std::string out;
  push(id, &out);
  return out;
}

void StreamDecoder::push(int32_t id, std::string* out) {
  tokenizer_.append_piece(id, options_, &strip_next_, &pending_);
  emit_complete(out);
}

void StreamDecoder::emit_complete(std::string* out) {
  size_t pos = 0;
  while (pos < pending_.size()) {
    const Utf8Scan scan = utf8_scan(pending_, pos);
    if (scan.step == Utf8Step::kTruncated) break;
    if (scan.step == Utf8Step::kInvalid) {
      out->append(kReplacement);
    } else {
      out->append(pending_, pos, scan.length);
    }
    pos += scan.length;
  }
  pending_.erase(0, pos);
}

std::string StreamDecoder::flush() {
  std::string out;
  flush(&out);
  return out;
}

void StreamDecoder::flush(std::string* out) {
  if (!pending_.empty()) out->append(kReplacement);
  pending_.clear();
  strip_next_ = options_.strip_space_prefix;
}

}  // namespace strata
