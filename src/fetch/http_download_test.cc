// download_file() against a local server: verification, resume after a cut connection or
// an earlier run, checksum rejection, HTTP errors.
#include "fetch/http_download.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "fetch/sha256_file.h"
#include "fetch/test_file_server.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

std::string payload(size_t n) {
  std::string s(n, '\0');
  uint32_t x = 12345;
  for (auto& c : s) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>(x >> 24);
  }
  return s;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class HttpDownloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-download-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  DownloadOptions options(const TestFileServer& server) const {
    DownloadOptions o;
    o.url = server.url();
    o.dest_path = (dir_ / "model.gguf").string();
    o.show_progress = false;
    o.retry_delay_s = 0;
    return o;
  }

  fs::path dir_;
  const std::string content_ = payload(300000);
  const std::string sha_ = sha256_hex(content_.data(), content_.size());
};

TEST_F(HttpDownloadTest, DownloadsAndVerifiesTheLinkedEtag) {
  TestFileServer server("o/r", "model.gguf", content_, sha_);
  auto r = download_file(options(server));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->verified);
  EXPECT_EQ(r->sha256, sha_);
  EXPECT_EQ(r->n_bytes, content_.size());
  EXPECT_TRUE(read_all((dir_ / "model.gguf").string()) == content_);
  EXPECT_FALSE(fs::exists(dir_ / "model.gguf.part"));
}

TEST_F(HttpDownloadTest, ResumesAfterACutConnection) {
  TestFileServer server("o/r", "model.gguf", content_, sha_);
  server.cut_first_transfer_after(120000);
  auto r = download_file(options(server));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->verified);
  EXPECT_GE(r->n_attempts, 2);
  EXPECT_TRUE(read_all((dir_ / "model.gguf").string()) == content_);
  std::vector<std::string> cdn_ranges;
  for (const auto& req : server.requests()) {
    if (req.method == "GET" && req.path.starts_with("/cdn/")) cdn_ranges.push_back(req.range);
  }
  ASSERT_GE(cdn_ranges.size(), 2u);
  EXPECT_EQ(cdn_ranges[0], "");
  EXPECT_EQ(cdn_ranges[1].rfind("bytes=", 0), 0u);
  EXPECT_GT(std::stoul(cdn_ranges[1].substr(6)), 0u);  // resumed, not restarted
}

TEST_F(HttpDownloadTest, ResumesAPartFileLeftByAnEarlierRun) {
  TestFileServer server("o/r", "model.gguf", content_, sha_);
  std::ofstream((dir_ / "model.gguf.part").string(), std::ios::binary).write(content_.data(), 1000);
  auto r = download_file(options(server));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(read_all((dir_ / "model.gguf").string()) == content_);
  bool saw_range = false;
  for (const auto& req : server.requests()) saw_range |= req.range == "bytes=1000-";
  EXPECT_TRUE(saw_range);
}

TEST_F(HttpDownloadTest, BadChecksumIsRejectedAndNothingIsKept) {
  TestFileServer server("o/r", "model.gguf", content_, sha_);
  DownloadOptions o = options(server);
  o.expected_sha256 = std::string(64, '0');
  auto r = download_file(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCorrupt);
  EXPECT_NE(r.status().message().find("sha256 mismatch"), std::string::npos) << r.status().message();
  EXPECT_FALSE(fs::exists(dir_ / "model.gguf"));
  EXPECT_FALSE(fs::exists(dir_ / "model.gguf.part"));
}

TEST_F(HttpDownloadTest, WrongLinkedEtagIsRejectedToo) {
  TestFileServer server("o/r", "model.gguf", content_, std::string(64, 'a'));
  auto r = download_file(options(server));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCorrupt);
  EXPECT_FALSE(fs::exists(dir_ / "model.gguf"));
}

TEST_F(HttpDownloadTest, MissingFileIsNotFound) {
  TestFileServer server("o/r", "model.gguf", content_, sha_);
  DownloadOptions o = options(server);
  o.url = server.endpoint() + "/o/r/resolve/main/other.gguf";
  auto r = download_file(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kNotFound);
  EXPECT_NE(r.status().message().find("HTTP 404"), std::string::npos);
}

TEST_F(HttpDownloadTest, UnreachableServerIsAnIoError) {
  DownloadOptions o;
  o.url = "http://127.0.0.1:1/o/r/resolve/main/model.gguf";
  o.dest_path = (dir_ / "model.gguf").string();
  o.show_progress = false;
  auto r = download_file(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kIoError);
  EXPECT_NE(r.status().message().find("cannot reach http://127.0.0.1:1"), std::string::npos) << r.status().message();
}

TEST_F(HttpDownloadTest, RejectsBadUrlsAndChecksums) {
  DownloadOptions o;
  o.url = "ftp://example.com/x";
  o.dest_path = (dir_ / "x").string();
  EXPECT_EQ(download_file(o).status().code(), Code::kInvalidArgument);
  o.url = "http://127.0.0.1:1/x";
  o.expected_sha256 = "abc";
  EXPECT_EQ(download_file(o).status().code(), Code::kInvalidArgument);
}

TEST(Sha256Test, KnownDigests) {
  EXPECT_EQ(sha256_hex("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_TRUE(looks_like_sha256("BA7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
  EXPECT_FALSE(looks_like_sha256("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015a"));
  EXPECT_FALSE(looks_like_sha256("0123456789abcdef0123456789abcdef01234567"));  // a git sha1
}

TEST(Sha256Test, FileDigestMatchesBufferDigest) {
  std::string path = (fs::temp_directory_path() / ("strata-sha-" + std::to_string(::getpid()))).string();
  std::string data = payload(3 << 20);
  std::ofstream(path, std::ios::binary).write(data.data(), static_cast<std::streamsize>(data.size()));
  auto digest = sha256_file(path);
  fs::remove(path);
  ASSERT_TRUE(digest.ok());
  EXPECT_EQ(*digest, sha256_hex(data.data(), data.size()));
  EXPECT_EQ(sha256_file(path).status().code(), Code::kIoError);
}

}  // namespace
}  // namespace strata
