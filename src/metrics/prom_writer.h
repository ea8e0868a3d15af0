// PromWriter: appends one exposition in the Prometheus text format 0.0.4 to a string.
//
// Owns nothing but a pointer to the output and the pending family header. A family's
// "# HELP" and "# TYPE" lines are written together with its first sample, so a family that
// gets no sample leaves no orphan header. Label values and help text are escaped as the
// format requires. Not thread-safe; one writer per scrape.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace strata {

struct PromLabel {
  std::string_view name;
  std::string_view value;
};

class Histogram;

class PromWriter {
 public:
  explicit PromWriter(std::string* out) : out_(out) {}

  // Starts a family; `type` is "counter", "gauge" or "histogram".
  // `common` labels are written first on every sample of the family; they must outlive it.
  void family(std::string_view name, std::string_view type, std::string_view help,
              std::span<const PromLabel> common = {});
  // One sample "<family><suffix>{common..., extra...} value".
  void sample(std::string_view suffix, std::span<const PromLabel> extra, double value);
  void sample(double value) { sample({}, {}, value); }
  void sample(std::span<const PromLabel> extra, double value) { sample({}, extra, value); }
  // _bucket (cumulative, `le` last, "+Inf" equal to _count), _sum and _count.
  void histogram(const Histogram& h);

 private:
  void write_header_once();
  void write_line(std::string_view suffix, std::span<const PromLabel> extra, std::string_view le,
                  double value);
  void write_labels(std::span<const PromLabel> extra, std::string_view le);

  std::string* out_;
  std::string_view name_, type_, help_;
  std::span<const PromLabel> common_;
  bool header_written_ = true;
};

// Escapes a label value: backslash, double quote and newline.
void append_escaped_label_value(std::string* out, std::string_view value);
// Escapes help text: backslash and newline.
void append_escaped_help(std::string* out, std::string_view help);

}  // namespace strata
