#include "web/web_assets.h"

#include "web/embedded_web_files.h"

namespace strata {

std::string_view web_content_type(std::string_view path) {
  struct Type {
    std::string_view ext, type;
  };
  static constexpr Type kTypes[] = {
      {".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},   {".svg", "image/svg+xml"},
      {".png", "image/png"},                 {".ico", "image/x-icon"},
  };
  for (const Type& t : kTypes) {
    if (path.size() >= t.ext.size() && path.substr(path.size() - t.ext.size()) == t.ext) {
      return t.type;
    }
  }
  return "application/octet-stream";
}

std::optional<WebAsset> web_asset(std::string_view path) {
  if (path == "/") path = "/index.html";
  for (const EmbeddedWebFile& f : embedded_web_files()) {
    // Exact match against the shipped names only, so "..", queries and odd paths miss.
    if (path == f.path) {
      return WebAsset{{reinterpret_cast<const char*>(f.bytes), f.n_bytes},
                      web_content_type(path)};
    }
  }
  return std::nullopt;
}

std::vector<std::string_view> web_asset_paths() {
  std::vector<std::string_view> out;
  for (const EmbeddedWebFile& f : embedded_web_files()) out.push_back(f.path);
  return out;
}

}  // namespace strata
