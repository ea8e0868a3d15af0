#include "metrics/prom_writer.h"

#include "metrics/histogram.h"
#include "metrics/prom_number.h"

namespace strata {

void append_escaped_label_value(std::string* out, std::string_view value) {
  for (char c : value) {
    if (c == '\\') {
      out->append("\\\\");
    } else if (c == '"') {
      out->append("\\\"");
    } else if (c == '\n') {
      out->append("\\n");
    } else {
      out->push_back(c);
    }
  }
}

void append_escaped_help(std::string* out, std::string_view help) {
  for (char c : help) {
    if (c == '\\') {
      out->append("\\\\");
    } else if (c == '\n') {
      out->append("\\n");
    } else {
      out->push_back(c);
    }
  }
}

void PromWriter::family(std::string_view name, std::string_view type, std::string_view help,
                        std::span<const PromLabel> common) {
  name_ = name;
  type_ = type;
  help_ = help;
  common_ = common;
  header_written_ = false;
}

void PromWriter::write_labels(std::span<const PromLabel> extra, std::string_view le) {
  if (common_.empty() && extra.empty() && le.empty()) return;
  out_->push_back('{');
  bool first = true;
  auto put = [&](std::string_view name, std::string_view value) {
    if (!first) out_->push_back(',');
    first = false;
    out_->append(name);
    out_->append("=\"");
    append_escaped_label_value(out_, value);
    out_->push_back('"');
  };
  for (const PromLabel& l : common_) put(l.name, l.value);
  for (const PromLabel& l : extra) put(l.name, l.value);
  if (!le.empty()) put("le", le);
  out_->push_back('}');
}

void PromWriter::write_header_once() {
  if (header_written_) return;
  out_->append("# HELP ");
  out_->append(name_);
  out_->push_back(' ');
  append_escaped_help(out_, help_);
  out_->append("\n# TYPE ");
  out_->append(name_);
  out_->push_back(' ');
  out_->append(type_);
  out_->push_back('\n');
  header_written_ = true;
}

void PromWriter::write_line(std::string_view suffix, std::span<const PromLabel> extra,
                            std::string_view le, double value) {
  write_header_once();
  out_->append(name_);
  out_->append(suffix);
  write_labels(extra, le);
  out_->push_back(' ');
  append_prom_float(out_, value);
  out_->push_back('\n');
}

void PromWriter::sample(std::string_view suffix, std::span<const PromLabel> extra, double value) {
  write_line(suffix, extra, {}, value);
}

void PromWriter::histogram(const Histogram& h) {
  uint64_t cumulative = 0;
  std::string le;
  for (size_t i = 0; i < h.bounds().size(); ++i) {
    cumulative += h.bucket(i);
    le.clear();
    append_prom_float(&le, h.bounds()[i]);
    write_line("_bucket", {}, le, static_cast<double>(cumulative));
  }
  // The +Inf bucket is the count itself, so the two cannot disagree.
  write_line("_bucket", {}, "+Inf", static_cast<double>(h.count()));
  write_line("_count", {}, {}, static_cast<double>(h.count()));
  write_line("_sum", {}, {}, h.sum());
}

}  // namespace strata
