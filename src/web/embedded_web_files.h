// The web page's files as compiled into the binary (see embed_web_files.cmake).
// Immutable static data; safe from any thread.
#pragma once

#include <cstddef>
#include <span>

namespace strata {

struct EmbeddedWebFile {
  const char* path;  // "/index.html", relative to web/ with a leading slash
  const unsigned char* bytes;
  size_t n_bytes;
};

std::span<const EmbeddedWebFile> embedded_web_files();

}  // namespace strata
