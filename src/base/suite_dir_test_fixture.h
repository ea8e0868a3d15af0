// SuiteDirTest (tests only): a GoogleTest fixture with a directory of the suite's own under the
// system's temporary directory (strata-SUITE-PID), made before each test and removed after it, so
// tests that write files never meet another process's. Not thread-safe (one test at a time).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace strata::testing {

class SuiteDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string suite = ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name();
    dir_ = std::filesystem::temp_directory_path() / ("strata-" + suite + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

}  // namespace strata::testing
