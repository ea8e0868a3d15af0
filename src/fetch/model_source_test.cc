// resolve_model_source(): -m, cache, download into the cache, and the offline fallbacks.
#include "fetch/model_source.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fetch/sha256_file.h"
#include "fetch/test_file_server.h"
#include "gguf/gguf_file.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUnreachable = "http://127.0.0.1:1";

class ModelSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = fs::temp_directory_path() / ("strata-cache-" + std::to_string(::getpid()));
    fs::create_directories(cache_);
  }
  void TearDown() override { fs::remove_all(cache_); }

  ModelSourceOptions options(const std::string& endpoint) const {
    ModelSourceOptions o;
    o.hf_repo = "owner/repo";
    o.hf_file = "model.gguf";
    o.cache_dir = cache_.string();
    o.endpoint = endpoint;
    o.show_progress = false;
    o.retry_delay_s = 0;
    return o;
  }

  void put(const fs::path& relative, const std::string& bytes) const {
    fs::create_directories((cache_ / relative).parent_path());
    std::ofstream(cache_ / relative, std::ios::binary) << bytes;
  }

  fs::path cache_;
};

TEST_F(ModelSourceTest, GivenPathIsUsedAsIs) {
  ModelSourceOptions o = options(kUnreachable);
  o.model_path = "/some/where.gguf";
  auto m = resolve_model_source(o);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->path, "/some/where.gguf");
  EXPECT_EQ(m->origin, ModelOrigin::kGiven);
}

TEST_F(ModelSourceTest, CachedFileNeedsNoNetwork) {
  put("hf/owner/repo/model.gguf", "cached");
  auto m = resolve_model_source(options(kUnreachable));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->origin, ModelOrigin::kCache);
  EXPECT_EQ(m->path, (cache_ / "hf/owner/repo/model.gguf").string());
}

TEST_F(ModelSourceTest, DownloadsIntoTheCache) {
  std::string content(50000, 'x');
  TestFileServer server("owner/repo", "model.gguf", content, sha256_hex(content.data(), content.size()));
  auto m = resolve_model_source(options(server.endpoint()));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->origin, ModelOrigin::kDownloaded);
  EXPECT_EQ(m->path, (cache_ / "hf/owner/repo/model.gguf").string());
  EXPECT_EQ(fs::file_size(m->path), content.size());
  auto again = resolve_model_source(options(server.endpoint()));
  size_t n_requests = server.requests().size();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->origin, ModelOrigin::kCache);
  EXPECT_EQ(server.requests().size(), n_requests);
}

TEST_F(ModelSourceTest, UnreachableEndpointFallsBackToTheRandomDemoModel) {
  auto m = resolve_model_source(options(kUnreachable));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->origin, ModelOrigin::kDemo);
  EXPECT_TRUE(m->random_weights);
  EXPECT_NE(m->note.find("RANDOM weights"), std::string::npos) << m->note;
  auto f = GgufFile::Open(m->path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->get_string("general.architecture"), "llama");
  EXPECT_EQ(f->get_string("tokenizer.ggml.model"), "llama");
}

TEST_F(ModelSourceTest, AnotherCachedModelBeatsTheDemo) {
  put("hf/someone/else/other.gguf", "real");
  auto m = resolve_model_source(options(kUnreachable));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->origin, ModelOrigin::kCache);
  EXPECT_EQ(m->path, (cache_ / "hf/someone/else/other.gguf").string());
  EXPECT_FALSE(m->random_weights);
}

TEST_F(ModelSourceTest, OfflineNeverTouchesTheNetwork) {
  TestFileServer server("owner/repo", "model.gguf", "data", sha256_hex("data", 4));
  ModelSourceOptions o = options(server.endpoint());
  o.offline = true;
  auto m = resolve_model_source(o);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->origin, ModelOrigin::kDemo);
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(ModelSourceTest, MissingRemoteFileIsAnErrorNotADemo) {
  TestFileServer server("owner/repo", "model.gguf", "data", sha256_hex("data", 4));
  ModelSourceOptions o = options(server.endpoint());
  o.hf_file = "nope.gguf";
  auto m = resolve_model_source(o);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Code::kNotFound);
}

TEST_F(ModelSourceTest, NoDemoWhenNotAllowed) {
  ModelSourceOptions o = options(kUnreachable);
  o.allow_demo = false;
  auto m = resolve_model_source(o);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Code::kNotFound);
  EXPECT_NE(m.status().message().find("pass -m FILE"), std::string::npos);
}

TEST_F(ModelSourceTest, RejectsNamesThatEscapeTheCache) {
  ModelSourceOptions o = options(kUnreachable);
  o.hf_repo = "../etc";
  EXPECT_EQ(resolve_model_source(o).status().code(), Code::kInvalidArgument);
  o.hf_repo = "owner/repo";
  o.hf_file = "../../x.gguf";
  EXPECT_EQ(resolve_model_source(o).status().code(), Code::kInvalidArgument);
  o.hf_repo = "noslash";
  o.hf_file = "x.gguf";
  EXPECT_EQ(resolve_model_source(o).status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace strata
