// download_file(): fetches one large file over HTTP(S) into place, resumably and verified.
//
// Data goes to DEST.part; a cut connection is retried with "Range: bytes=N-" so the bytes
// already on disk are kept (also across runs: a later call resumes the same .part). The
// finished file is checked against a SHA-256 (given, or the server's X-Linked-Etag / ETag
// when that is one) and only then renamed to DEST; on a mismatch the data is deleted.
// Redirects are followed (Hugging Face sends files from a CDN). Blocking; one call per file;
// safe to run concurrently for different destinations.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace strata {

struct DownloadOptions {
  std::string url;              // http://host[:port]/path or https://...
  std::string dest_path;
  std::string expected_sha256;  // empty: take it from the server's headers, if any
  std::string bearer_token;     // sent as Authorization when set (gated repositories)
  bool show_progress = true;    // progress bar on stderr
  int max_attempts = 5;
  double retry_delay_s = 1.0;   // grows linearly with the attempt number
  int connect_timeout_s = 10;
  int read_timeout_s = 60;
};

struct DownloadResult {
  uint64_t n_bytes = 0;
  std::string sha256;
  bool verified = false;  // an expected SHA-256 was known and matched
  int n_attempts = 0;
};

// Errors: kIoError when the server cannot be reached or the transfer keeps failing (the
// .part is kept for a later resume), kNotFound for HTTP 404, kInvalidArgument for a bad
// URL or HTTP 401/403, kCorrupt for a size or checksum mismatch (the data is deleted).
Result<DownloadResult> download_file(const DownloadOptions& options);

}  // namespace strata
