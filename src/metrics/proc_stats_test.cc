#include "metrics/proc_stats.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace strata {
namespace {

namespace fs = std::filesystem;

class FakeProc : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("strata_fake_proc_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "self" / "fd");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& rel, const std::string& text) {
    std::ofstream(root_ / rel) << text;
  }
  fs::path root_;
};

TEST_F(FakeProc, ReadsProcessFiguresFromStat) {
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  // Command names may hold spaces and parentheses.
  write("self/stat",
        "42 (my (odd) cmd) S 1 42 42 0 -1 4194304 100 0 0 0 250 150 0 0 20 0 3 0 500 "
        "1048576 300 18446744073709551615\n");
  write("stat", "cpu  10 0 10 80 0 0 0 0 0 0\nbtime 1700000000\n");
  write("self/limits", "Limit Soft Limit Hard Limit Units\nMax open files 1024 4096 files\n");
  write("self/fd/0", "");
  write("self/fd/1", "");
  ProcessStats s = read_process_stats(root_.string());
  ASSERT_TRUE(s.cpu_s && s.start_time_s && s.virtual_bytes && s.resident_bytes && s.open_fds &&
              s.max_fds);
  EXPECT_EQ(*s.cpu_s, 400 / hz);
  EXPECT_EQ(*s.start_time_s, 1700000000 + 500 / hz);
  EXPECT_EQ(*s.virtual_bytes, 1048576);
  EXPECT_EQ(*s.resident_bytes, 300 * page);
  EXPECT_EQ(*s.open_fds, 2);
  EXPECT_EQ(*s.max_fds, 1024);
}

TEST_F(FakeProc, MissingFilesGiveNoFigures) {
  ProcessStats s = read_process_stats((root_ / "nowhere").string());
  EXPECT_FALSE(s.cpu_s || s.start_time_s || s.virtual_bytes || s.resident_bytes || s.open_fds ||
               s.max_fds);
  EXPECT_FALSE(read_host_memory((root_ / "nowhere").string()));
  EXPECT_FALSE(read_host_cpu_ticks((root_ / "nowhere").string()));
  EXPECT_TRUE(read_gpu_busy((root_ / "nowhere").string()).empty());
}

TEST_F(FakeProc, HostMemoryIsTotalMinusAvailable) {
  write("meminfo", "MemTotal:       1000 kB\nMemFree:   100 kB\nMemAvailable:    250 kB\n");
  auto m = read_host_memory(root_.string());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->total_bytes, 1000u * 1024);
  EXPECT_EQ(m->used_bytes, 750u * 1024);
}

TEST_F(FakeProc, CpuShareCountsIdleAndIowaitAsNotBusy) {
  write("stat", "cpu  10 0 10 70 10 0 0 0 0 0\n");
  auto before = read_host_cpu_ticks(root_.string());
  write("stat", "cpu  40 0 20 100 20 0 0 0 0 0\n");
  auto after = read_host_cpu_ticks(root_.string());
  ASSERT_TRUE(before && after);
  auto share = cpu_busy_share(*before, *after);
  ASSERT_TRUE(share);
  EXPECT_EQ(*share, 40.0 / 80.0);
  EXPECT_FALSE(cpu_busy_share(*after, *after));
}

TEST_F(FakeProc, GpuBusyFromSysfs) {
  fs::create_directories(root_ / "class/drm/card1/device");
  write("class/drm/card1/device/gpu_busy_percent", "37\n");
  auto g = read_gpu_busy(root_.string());
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].gpu, 1);
  EXPECT_EQ(g[0].share, 0.37);
}

TEST(RealProc, ThisProcessHasFigures) {
  ProcessStats s = read_process_stats("/proc");
  ASSERT_TRUE(s.cpu_s && s.resident_bytes && s.open_fds && s.start_time_s);
  EXPECT_GT(*s.resident_bytes, 0);
  EXPECT_GE(*s.open_fds, 3);
}

}  // namespace
}  // namespace strata
