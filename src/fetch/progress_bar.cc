#include "fetch/progress_bar.h"

#include <unistd.h>

#include <cstdio>

#include "base/clock.h"

namespace strata {

namespace {

constexpr double kRedrawInterval_s = 0.2;
constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

ProgressBar::ProgressBar(std::string label, bool enabled)
    : label_(std::move(label)), enabled_(enabled), tty_(::isatty(STDERR_FILENO) != 0), start_s_(monotonic_s()) {}

void ProgressBar::update(uint64_t done_bytes, uint64_t total_bytes) {
  if (!enabled_) return;
  if (first_bytes_ == UINT64_MAX) first_bytes_ = done_bytes;
  last_done_ = done_bytes;
  last_total_ = total_bytes;
  double now_s = monotonic_s();
  if (tty_) {
    if (now_s - last_draw_s_ < kRedrawInterval_s) return;
  } else {
    int decile = total_bytes > 0 ? static_cast<int>(done_bytes * 10 / total_bytes) : -1;
    if (decile == last_decile_) return;
    last_decile_ = decile;
  }
  last_draw_s_ = now_s;
  draw(done_bytes, total_bytes);
}

void ProgressBar::draw(uint64_t done_bytes, uint64_t total_bytes) {
  drawn_done_ = done_bytes;
  double elapsed_s = monotonic_s() - start_s_;
  double rate = elapsed_s > 0 ? static_cast<double>(done_bytes - first_bytes_) / kMiB / elapsed_s : 0.0;
  char line[256];
  if (total_bytes > 0) {
    const int kWidth = 30;
    int filled = static_cast<int>(done_bytes * kWidth / total_bytes);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(kWidth, '.');
    std::snprintf(line, sizeof(line), "%s [%s] %3d%% %.1f/%.1f MiB %.1f MiB/s", label_.c_str(), bar.c_str(),
                  static_cast<int>(done_bytes * 100 / total_bytes), static_cast<double>(done_bytes) / kMiB,
                  static_cast<double>(total_bytes) / kMiB, rate);
  } else {
    std::snprintf(line, sizeof(line), "%s %.1f MiB %.1f MiB/s", label_.c_str(), static_cast<double>(done_bytes) / kMiB,
                  rate);
  }
  std::fprintf(stderr, tty_ ? "\r%s\033[K" : "%s\n", line);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (!enabled_) return;
  // A log (not a terminal) already has a line for the final state when update() drew it.
  if (tty_ || drawn_done_ != last_done_) draw(last_done_, last_total_);
  if (tty_) std::fputc('\n', stderr);
}

}  // namespace strata
