// The web page served at GET / (Chat and Monitor tabs) and its static files, compiled in
// from web/. Stateless lookups into immutable data; safe from any thread.
//
// Server use: GET "/" and GET "/<file>" -> web_asset(req.path); nullopt -> 404.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace strata {

struct WebAsset {
  std::string_view body;          // the file's bytes; static storage
  std::string_view content_type;  // e.g. "text/html; charset=utf-8"
};

// `path` is the request path: "/" gives index.html; anything not a shipped file (including
// paths with "..", a query or no leading slash) gives nullopt.
std::optional<WebAsset> web_asset(std::string_view path);

// Every shipped path ("/index.html", "/app.js", ...).
std::vector<std::string_view> web_asset_paths();

// Content type for a file name by its extension; "application/octet-stream" if unknown.
std::string_view web_content_type(std::string_view path);

}  // namespace strata
