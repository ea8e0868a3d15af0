// Readers of the figures the kernel publishes under /proc (and GPU busy share under /sys):
// this process's CPU time, memory, file descriptors and start time, and the host's CPU
// times and memory. A figure the kernel does not give is left empty, never guessed.
// Stateless functions; safe from any thread. The roots are parameters so tests can point
// them at a fake tree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata {

struct ProcessStats {
  std::optional<double> cpu_s;            // user + system time
  std::optional<double> resident_bytes;
  std::optional<double> virtual_bytes;
  std::optional<double> open_fds;
  std::optional<double> max_fds;          // soft limit
  std::optional<double> start_time_s;     // seconds since the Unix epoch
};

struct HostCpuTicks {
  uint64_t busy = 0;   // all but idle and iowait
  uint64_t total = 0;
};

struct HostMemory {
  uint64_t total_bytes = 0;
  uint64_t used_bytes = 0;  // total minus what the kernel calls available
};

struct GpuBusy {
  int gpu = 0;
  double share = 0.0;  // 0..1
};

ProcessStats read_process_stats(const std::string& proc_root);
std::optional<HostCpuTicks> read_host_cpu_ticks(const std::string& proc_root);
std::optional<HostMemory> read_host_memory(const std::string& proc_root);
// Busy share of each GPU whose driver publishes one (sysfs gpu_busy_percent); none here.
std::vector<GpuBusy> read_gpu_busy(const std::string& sys_root);

// Share of CPU time spent busy between two readings; empty when no time passed.
std::optional<double> cpu_busy_share(const HostCpuTicks& before, const HostCpuTicks& after);

}  // namespace strata
