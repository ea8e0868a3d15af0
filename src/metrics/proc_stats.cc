#include "metrics/proc_stats.h"

#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

namespace strata {
namespace {

std::optional<double> parse_double(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  double v = 0;
  auto res = std::from_chars(text.data(), text.data() + text.size(), v);
  if (res.ec != std::errc() || res.ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The value of "key <number>" on the line that starts with key in a /proc text file.
std::optional<uint64_t> keyed_number(const std::string& text, std::string_view key) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.compare(0, key.size(), key) != 0) continue;
    std::istringstream fields(line.substr(key.size()));
    uint64_t v = 0;
    if (fields >> v) return v;
  }
  return std::nullopt;
}

std::optional<double> boot_time_s(const std::string& proc_root) {
  auto text = read_text(proc_root + "/stat");
  if (!text) return std::nullopt;
  auto v = keyed_number(*text, "btime ");
  if (!v) return std::nullopt;
  return static_cast<double>(*v);
}

// Fields of /proc/self/stat after the command name, which may itself hold spaces.
std::vector<std::string> self_stat_fields(const std::string& proc_root) {
  std::vector<std::string> fields;
  auto text = read_text(proc_root + "/self/stat");
  if (!text) return fields;
  size_t paren = text->rfind(')');
  if (paren == std::string::npos) return fields;
  std::istringstream ss(text->substr(paren + 1));
  std::string f;
  while (ss >> f) fields.push_back(f);
  return fields;
}

std::optional<double> field_number(const std::vector<std::string>& fields, size_t stat_index) {
  // stat_index counts from 1 as in proc(5); fields[0] is field 3 (state).
  size_t i = stat_index - 3;
  if (i >= fields.size()) return std::nullopt;
  return parse_double(fields[i]);
}

std::optional<double> count_open_fds(const std::string& proc_root) {
  std::error_code ec;
  std::filesystem::directory_iterator it(proc_root + "/self/fd", ec);
  if (ec) return std::nullopt;
  double n = 0;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) return std::nullopt;
    ++n;
  }
  return n;
}

std::optional<double> soft_fd_limit(const std::string& proc_root) {
  auto text = read_text(proc_root + "/self/limits");
  if (!text) return std::nullopt;
  auto v = keyed_number(*text, "Max open files");
  if (!v) return std::nullopt;
  return static_cast<double>(*v);
}

}  // namespace

ProcessStats read_process_stats(const std::string& proc_root) {
  ProcessStats s;
  const double ticks_per_s = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page_bytes = static_cast<double>(sysconf(_SC_PAGESIZE));
  std::vector<std::string> f = self_stat_fields(proc_root);
  auto utime = field_number(f, 14), stime = field_number(f, 15);
  if (utime && stime && ticks_per_s > 0) s.cpu_s = (*utime + *stime) / ticks_per_s;
  auto start_ticks = field_number(f, 22);
  auto boot_s = boot_time_s(proc_root);
  if (start_ticks && boot_s && ticks_per_s > 0) s.start_time_s = *boot_s + *start_ticks / ticks_per_s;
  s.virtual_bytes = field_number(f, 23);
  if (auto rss_pages = field_number(f, 24)) s.resident_bytes = *rss_pages * page_bytes;
  s.open_fds = count_open_fds(proc_root);
  s.max_fds = soft_fd_limit(proc_root);
  return s;
}

std::optional<HostCpuTicks> read_host_cpu_ticks(const std::string& proc_root) {
  auto text = read_text(proc_root + "/stat");
  if (!text || text->compare(0, 4, "cpu ") != 0) return std::nullopt;
  std::istringstream ss(text->substr(4, text->find('\n') - 4));
  // user nice system idle iowait irq softirq steal; guest time is already inside user.
  uint64_t v[8] = {};
  int n = 0;
  while (n < 8 && ss >> v[n]) ++n;
  if (n < 4) return std::nullopt;
  HostCpuTicks t;
  for (int i = 0; i < n; ++i) t.total += v[i];
  t.busy = t.total - v[3] - (n > 4 ? v[4] : 0);
  return t;
}

std::optional<HostMemory> read_host_memory(const std::string& proc_root) {
  auto text = read_text(proc_root + "/meminfo");
  if (!text) return std::nullopt;
  auto total_kib = keyed_number(*text, "MemTotal:");
  auto avail_kib = keyed_number(*text, "MemAvailable:");
  if (!total_kib || !avail_kib || *avail_kib > *total_kib) return std::nullopt;
  return HostMemory{*total_kib * 1024, (*total_kib - *avail_kib) * 1024};
}

std::vector<GpuBusy> read_gpu_busy(const std::string& sys_root) {
  std::vector<GpuBusy> out;
  for (int card = 0; card < 16; ++card) {
    auto text = read_text(sys_root + "/class/drm/card" + std::to_string(card) +
                          "/device/gpu_busy_percent");
    if (!text) continue;
    if (auto percent = parse_double(*text)) out.push_back({card, *percent / 100.0});
  }
  return out;
}

std::optional<double> cpu_busy_share(const HostCpuTicks& before, const HostCpuTicks& after) {
  if (after.total <= before.total || after.busy < before.busy) return std::nullopt;
  return static_cast<double>(after.busy - before.busy) /
         static_cast<double>(after.total - before.total);
}

}  // namespace strata
