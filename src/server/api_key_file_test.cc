#include "server/api_key_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace strata::server {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards; write() puts one file into it.
class ApiKeyFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir_ = fs::temp_directory_path() / ("strata-api-key-file-" + std::to_string(::getpid()) + "-" + name);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& bytes) {
    const fs::path path = dir_ / "key";
    std::ofstream(path, std::ios::binary) << bytes;
    return path.string();
  }

  fs::path dir_;
};

TEST_F(ApiKeyFileTest, ReadsOneKeyWithoutTheTrailingNewline) {
  auto keys = read_api_key_file(write("s3cret-key\n"));
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(*keys, std::vector<std::string>{"s3cret-key"});
}

TEST_F(ApiKeyFileTest, ReadsAKeyWithoutAnyNewline) {
  auto keys = read_api_key_file(write("abc"));
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(*keys, std::vector<std::string>{"abc"});
}

TEST_F(ApiKeyFileTest, EachNonBlankLineIsAKeyTrimmedOfSpacesAndCarriageReturns) {
  auto keys = read_api_key_file(write("  old-key \r\n\n\t new-key\t\r\n   \n"));
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(*keys, (std::vector<std::string>{"old-key", "new-key"}));
}

TEST_F(ApiKeyFileTest, AMissingFileIsAnErrorNamingThePath) {
  const std::string path = (dir_ / "absent").string();
  auto keys = read_api_key_file(path);
  ASSERT_FALSE(keys.ok());
  EXPECT_NE(keys.status().message().find(path), std::string::npos) << keys.status().message();
  EXPECT_NE(keys.status().message().find("--api-key-file"), std::string::npos);
}

TEST_F(ApiKeyFileTest, AFileOfOnlyBlankLinesHoldsNoKey) {
  const std::string path = write(" \n\r\n\t\n");
  auto keys = read_api_key_file(path);
  ASSERT_FALSE(keys.ok());
  EXPECT_NE(keys.status().message().find("holds no key"), std::string::npos) << keys.status().message();
  EXPECT_NE(keys.status().message().find(path), std::string::npos);
}

TEST_F(ApiKeyFileTest, AFileLargerThanTheLimitIsRefused) {
  auto keys = read_api_key_file(write(std::string(kMaxApiKeyFileBytes + 1, 'k')));
  ASSERT_FALSE(keys.ok());
  EXPECT_NE(keys.status().message().find("larger than"), std::string::npos) << keys.status().message();
}

TEST_F(ApiKeyFileTest, AFileOfExactlyTheLimitIsRead) {
  auto keys = read_api_key_file(write(std::string(kMaxApiKeyFileBytes, 'k')));
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  ASSERT_EQ(keys->size(), 1u);
  EXPECT_EQ((*keys)[0].size(), kMaxApiKeyFileBytes);
}

TEST_F(ApiKeyFileTest, ADirectoryIsAnErrorNotACrash) {
  auto keys = read_api_key_file(dir_.string());
  ASSERT_FALSE(keys.ok());
  EXPECT_NE(keys.status().message().find("is a directory"), std::string::npos) << keys.status().message();
}

}  // namespace
}  // namespace strata::server
