// StreamDecoder: turns generated token ids into text one token at a time, for streaming.
//
// A token may end inside a UTF-8 character (byte-fallback and byte-level tokens carry single
// bytes), so push() emits only whole characters and holds the incomplete tail back until later
// tokens complete it. Bytes that can never form a character are replaced by U+FFFD, and flush()
// replaces a tail that was never completed; the text it returns is therefore always valid UTF-8,
// and for ids whose decode() is valid UTF-8 the concatenated output equals that decode().
//
// Per request; not thread-safe. Holds a reference to the Tokenizer, which must outlive it.
// push() allocates only the returned string; the push(id, out) form appends to the caller's.
#pragma once

#include <cstdint>
#include <string>

#include "tokenizer/tokenizer.h"

namespace strata {

class StreamDecoder {
 public:
  struct Options {
    bool skip_special = false;
    // Generated tokens continue the prompt, so by default a leading space is kept (see the
    // space-prefix rule in tokenizer.h); set when the ids start a text of their own.
    bool strip_space_prefix = false;
  };

  explicit StreamDecoder(const Tokenizer& tokenizer) : StreamDecoder(tokenizer, Options{}) {}
  StreamDecoder(const Tokenizer& tokenizer, Options options);

  // The text that id completes (possibly empty).
  std::string push(int32_t id);
  void push(int32_t id, std::string* out);
  // The held-back tail, as U+FFFD if any; the decoder is then ready for a new text.
  std::string flush();
  void flush(std::string* out);

  size_t n_pending_bytes() const { return pending_.size(); }

 private:
  void emit_complete(std::string* out);

  const Tokenizer& tokenizer_;
  DecodeOptions options_;
  bool strip_next_;
  std::string pending_;  // bytes not yet emitted: at most an incomplete character between calls
};

}  // namespace strata
