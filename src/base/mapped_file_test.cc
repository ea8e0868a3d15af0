#include "base/mapped_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace strata {
namespace {

namespace fs = std::filesystem;

// A file of n_bytes of a known pattern in a fresh temporary directory, removed afterwards.
class MappedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-mapped-file-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(size_t n_bytes) {
    bytes_.resize(n_bytes);
    for (size_t i = 0; i < n_bytes; ++i) bytes_[i] = static_cast<char>((i * 131 + i / 4096) & 0xff);
    const std::string path = (dir_ / "data.bin").string();
    std::ofstream(path, std::ios::binary).write(bytes_.data(), static_cast<std::streamsize>(bytes_.size()));
    return path;
  }
  bool same_bytes(const MappedFile& f) const {
    return f.size() == bytes_.size() && std::equal(bytes_.begin(), bytes_.end(), reinterpret_cast<const char*>(f.data()));
  }
  fs::path dir_;
  std::vector<char> bytes_;
};

TEST_F(MappedFileTest, MapsTheFilesBytes) {
  auto f = MappedFile::Open(write(10000));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(same_bytes(*f));
}

TEST_F(MappedFileTest, MissingFileIsNotFoundAndADirectoryIsAnError) {
  auto missing = MappedFile::Open((dir_ / "nope.bin").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_NE(missing.status().message().find("nope.bin"), std::string::npos);
  auto directory = MappedFile::Open(dir_.string());
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.status().message().find("not a regular file"), std::string::npos);
}

TEST_F(MappedFileTest, ReleasedPagesStillReadTheFile) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  auto f = MappedFile::Open(write(5 * page + 123));
  ASSERT_TRUE(f.ok());
  const uint8_t* base = f->data();
  ASSERT_TRUE(same_bytes(*f));  // every page resident
  f->release_pages(base + page / 2, 3 * page);
  f->release_pages(base, f->size());
  // Ranges not inside the mapping are ignored.
  f->release_pages(base - page, 2 * page);
  f->release_pages(base + f->size() - 10, 20);
  int outside = 0;
  f->release_pages(&outside, sizeof outside);
  EXPECT_TRUE(same_bytes(*f));
  EXPECT_EQ(outside, 0);
}

}  // namespace
}  // namespace strata
