#include "web/web_assets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace strata {
namespace {

std::string read_source(const std::string& rel) {
  std::ifstream in(std::string(STRATA_SOURCE_DIR) + "/web" + rel, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(WebAssets, RootServesIndexHtmlByteForByte) {
  auto page = web_asset("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->content_type, "text/html; charset=utf-8");
  std::string source = read_source("/index.html");
  ASSERT_FALSE(source.empty());
  ASSERT_EQ(page->body.size(), source.size());
  EXPECT_EQ(0, std::memcmp(page->body.data(), source.data(), source.size()));
}

TEST(WebAssets, EveryPageFileIsShippedWithItsType) {
  auto paths = web_asset_paths();
  for (const char* p : {"/index.html", "/app.js", "/style.css"}) {
    EXPECT_NE(std::find(paths.begin(), paths.end(), p), paths.end()) << p;
  }
  for (std::string_view p : paths) {
    auto a = web_asset(p);
    ASSERT_TRUE(a) << p;
    std::string source = read_source(std::string(p));
    ASSERT_EQ(a->body.size(), source.size()) << p;
    EXPECT_EQ(0, std::memcmp(a->body.data(), source.data(), source.size())) << p;
  }
  EXPECT_EQ(web_asset("/app.js")->content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(web_asset("/style.css")->content_type, "text/css; charset=utf-8");
}

TEST(WebAssets, UnknownOrEscapingPathsAreNotFound) {
  for (const char* p : {"/nope.html", "", "index.html", "/../CMakeLists.txt", "/./index.html",
                        "/index.html?x=1", "//index.html", "/INDEX.HTML"}) {
    EXPECT_FALSE(web_asset(p)) << p;
  }
}

TEST(WebAssets, ContentTypeFollowsExtension) {
  EXPECT_EQ(web_content_type("/a.svg"), "image/svg+xml");
  EXPECT_EQ(web_content_type("/a.png"), "image/png");
  EXPECT_EQ(web_content_type("/a.bin"), "application/octet-stream");
}

}  // namespace
}  // namespace strata
