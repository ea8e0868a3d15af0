#include "fetch/sha256_file.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace strata {

namespace {

struct DigestFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
struct CloseHashedFile {
  void operator()(FILE* f) const { std::fclose(f); }
};

std::string to_hex(const unsigned char* digest, unsigned n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < n; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0x0f];
  }
  return out;
}

}  // namespace

std::string sha256_hex(const void* data, size_t n_bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  EVP_Digest(data, n_bytes, digest, &n, EVP_sha256(), nullptr);
  return to_hex(digest, n);
}

Result<std::string> sha256_file(const std::string& path) {
  std::unique_ptr<FILE, CloseHashedFile> f(std::fopen(path.c_str(), "rb"));
  if (!f) return Status::IoError(path + ": " + std::strerror(errno));
  std::unique_ptr<EVP_MD_CTX, DigestFree> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    return Status::Internal("sha256: cannot initialise the digest");
  }
  std::vector<unsigned char> buffer(1 << 20);
  size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), f.get())) > 0) EVP_DigestUpdate(ctx.get(), buffer.data(), n);
  if (std::ferror(f.get())) return Status::IoError(path + ": read failed");
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned n_digest = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &n_digest);
  return to_hex(digest, n_digest);
}

bool looks_like_sha256(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!hex) return false;
  }
  return true;
}

}  // namespace strata
