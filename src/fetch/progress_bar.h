// ProgressBar: a one-line download progress report on stderr ("\r" redrawn on a terminal,
// a line per 10% otherwise so logs stay readable). Redraws at most 5 times a second.
// Not thread-safe; one per transfer.
#pragma once

#include <cstdint>
#include <string>

namespace strata {

class ProgressBar {
 public:
  ProgressBar(std::string label, bool enabled);
  // done and total in bytes; total 0 when unknown.
  void update(uint64_t done_bytes, uint64_t total_bytes);
  void finish();

 private:
  void draw(uint64_t done_bytes, uint64_t total_bytes);

  std::string label_;
  bool enabled_;
  bool tty_;
  double start_s_;
  double last_draw_s_ = 0;
  int last_decile_ = -1;
  uint64_t first_bytes_ = UINT64_MAX;  // bytes already on disk when the transfer started
  uint64_t last_done_ = 0, last_total_ = 0;
  uint64_t drawn_done_ = UINT64_MAX;  // done_bytes of the last line drawn
};

}  // namespace strata
