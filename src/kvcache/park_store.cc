#include "kvcache/park_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <vector>

#include "base/log.h"
#include "kvcache/park_file.h"

namespace strata {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kBlockSuffix = ".kvb";
constexpr std::string_view kStateSuffix = ".kvs";
constexpr std::string_view kWindowSuffix = ".kvw";

std::string_view suffix(ParkKind kind) {
  return kind == ParkKind::kState ? kStateSuffix : kind == ParkKind::kWindow ? kWindowSuffix : kBlockSuffix;
}

const char* kind_name(ParkKind kind) {
  return kind == ParkKind::kState ? "state " : kind == ParkKind::kWindow ? "window block " : "block ";
}
constexpr uint64_t kPayloadSeed = 0x6B762D7061796C64ull;  // "kv-payld"
// Temporary files older than this are left over from a crash (a live writer renames
// its file within milliseconds).
constexpr auto kStaleTmpAge = std::chrono::minutes(10);

bool write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { if (fd_ >= 0) ::close(fd_); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  bool close() {
    int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }

 private:
  int fd_;
};

// Parses "<32 hex digits>.kvb" (a block) or ".kvs" (a state) into a key and its kind.
bool parse_file_name(const std::string& name, BlockHash* key, ParkKind* kind) {
  if (name.size() != 32 + kBlockSuffix.size()) return false;
  if (name.ends_with(kBlockSuffix)) *kind = ParkKind::kBlock;
  else if (name.ends_with(kStateSuffix)) *kind = ParkKind::kState;
  else if (name.ends_with(kWindowSuffix)) *kind = ParkKind::kWindow;
  else return false;
  uint64_t parts[2] = {0, 0};
  for (int i = 0; i < 32; ++i) {
    char c = name[i];
    int v = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
    if (v < 0) return false;
    parts[i / 16] = (parts[i / 16] << 4) | static_cast<uint64_t>(v);
  }
  key->hi = parts[0];
  key->lo = parts[1];
  return true;
}

}  // namespace

ParkStore::ParkStore(std::string dir, uint64_t capacity_bytes, const ParkIdentity& identity)
    : dir_(std::move(dir)), identity_(identity) {
  stats_.capacity_bytes = capacity_bytes;
}

Result<std::unique_ptr<ParkStore>> ParkStore::Open(const std::string& dir, uint64_t capacity_bytes,
                                                   const ParkIdentity& identity) {
  if (dir.empty()) return Status::InvalidArgument("--park-dir is empty");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IoError("--park-dir " + dir + ": cannot create: " + ec.message());
  if (!fs::is_directory(dir, ec)) return Status::InvalidArgument("--park-dir " + dir + " is not a directory");
  std::unique_ptr<ParkStore> store(new ParkStore(dir, capacity_bytes, identity));
  STRATA_RETURN_IF_ERROR(store->scan());
  store->make_room(0);
  return store;
}

ParkIdentity ParkStore::file_identity(ParkKind kind) const {
  ParkIdentity id = identity_;
  if (kind == ParkKind::kState) id.block_bytes = identity_.state_bytes;
  if (kind == ParkKind::kWindow) id.block_bytes = identity_.window_bytes;
  id.state_bytes = id.window_bytes = 0;  // not in the header
  return id;
}

uint64_t ParkStore::file_bytes(ParkKind kind) const { return park_file_bytes(file_identity(kind)); }

std::string ParkStore::path_of(const FileKey& key) const {
  return dir_ + "/" + key.hash.hex() + std::string(suffix(key.kind));
}

uint64_t& ParkStore::file_count(ParkKind kind) { return kind == ParkKind::kState ? stats_.states : stats_.blocks; }

Status ParkStore::scan() {
  struct Found {
    fs::file_time_type mtime;
    FileKey key;
  };
  std::vector<Found> found;
  std::vector<std::byte> prefix(park_prefix_bytes(identity_));  // the same for both kinds
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir_, ec)) {
    std::string name = entry.path().filename().string();
    std::error_code file_ec;
    if (name.find(".tmp") != std::string::npos) {
      auto age = fs::file_time_type::clock::now() - entry.last_write_time(file_ec);
      if (!file_ec && age > kStaleTmpAge) fs::remove(entry.path(), file_ec);
      continue;
    }
    FileKey key;
    if (!parse_file_name(name, &key.hash, &key.kind)) continue;
    if (file_identity(key.kind).block_bytes == 0) continue;  // another engine's state or window file
    const uint64_t size_bytes = entry.file_size(file_ec);
    if (file_ec) continue;
    if (size_bytes != file_bytes(key.kind)) {
      remove_if_cut_short(key.kind, entry.path().string(), size_bytes);
      continue;
    }
    Fd fd(::open(entry.path().c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0 || !read_all(fd.get(), prefix.data(), prefix.size())) continue;
    Result<ParkPrefix> decoded = decode_park_prefix(key.kind, prefix.data(), prefix.size(), entry.path().string());
    if (!decoded.ok()) {
      STRATA_LOG_WARN("park store: removing {}", decoded.status().ToString());
      fs::remove(entry.path(), file_ec);
      continue;
    }
    if (!(decoded->identity == file_identity(key.kind)) || !(decoded->key == key.hash)) continue;
    found.push_back({entry.last_write_time(file_ec), key});
  }
  if (ec) return Status::IoError("--park-dir " + dir_ + ": cannot list: " + ec.message());
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.mtime < b.mtime; });
  for (const Found& f : found) {
    index_[f.key] = Entry{};
    touch(f.key);
    stats_.bytes += file_bytes(f.key.kind);
    ++file_count(f.key.kind);
  }
  return Status::Ok();
}

// Another layout's blocks have another size and belong to another engine; but a file whose
// own header says it should be longer (or that cannot even hold a header) was cut short, by a
// full disk or a crash of the writer, and is of no use to anyone.
void ParkStore::remove_if_cut_short(ParkKind kind, const std::string& path, uint64_t size_bytes) {
  std::string why;
  if (size_bytes < kParkHeaderBytes) {
    why = "shorter than a park header";
  } else {
    std::byte header[kParkHeaderBytes];
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0 || !read_all(fd.get(), header, sizeof(header))) return;
    Result<ParkIdentity> written = decode_park_identity(kind, header, sizeof(header), path);
    if (!written.ok()) return;  // not a park file this version understands: left alone
    const uint64_t whole_bytes = park_file_bytes(*written);
    if (size_bytes == whole_bytes) return;
    why = "its header describes a " + std::to_string(whole_bytes) + "-byte file";
  }
  STRATA_LOG_WARN("park store: removing {}: cut short ({} bytes; {})", path, size_bytes, why);
  std::error_code ec;
  fs::remove(path, ec);
}

void ParkStore::touch(const FileKey& key) {
  Entry& e = index_[key];
  if (e.last_use != 0) by_use_.erase(e.last_use);
  e.last_use = ++use_counter_;
  by_use_[e.last_use] = key;
}

void ParkStore::remove(FileKey key) {
  auto it = index_.find(key);
  if (it == index_.end()) return;
  by_use_.erase(it->second.last_use);
  index_.erase(it);
  std::error_code ec;
  fs::remove(path_of(key), ec);
  stats_.bytes -= file_bytes(key.kind);
  --file_count(key.kind);
}

void ParkStore::make_room(uint64_t n_bytes) {
  while (!by_use_.empty() && stats_.bytes + n_bytes > stats_.capacity_bytes) {
    remove(by_use_.begin()->second);  // by value: the entry it names is erased inside
    ++stats_.deleted;
  }
}

Result<bool> ParkStore::put(const BlockHash& hash, std::span<const int32_t> tokens, const std::byte* data,
                            ParkKind kind) {
  const FileKey key{hash, kind};
  if (index_.count(key) != 0) {
    touch(key);
    return false;
  }
  const ParkIdentity id = file_identity(kind);
  if (id.block_bytes == 0 || file_bytes(kind) > stats_.capacity_bytes) return false;
  make_room(file_bytes(kind));
  std::vector<std::byte> prefix(park_prefix_bytes(id));
  encode_park_prefix(kind, id, hash, tokens, hash_bytes64(data, id.block_bytes, kPayloadSeed), prefix.data());
  std::string path = path_of(key);
  std::string tmp = path + ".tmp" + std::to_string(::getpid()) + "." +
                    std::to_string(reinterpret_cast<uintptr_t>(this)) + "." + std::to_string(++tmp_counter_);
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) return Status::IoError("park store: cannot create " + tmp + ": " + std::strerror(errno));
  bool ok = write_all(fd.get(), prefix.data(), prefix.size()) && write_all(fd.get(), data, id.block_bytes);
  ok = fd.close() && ok;
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return Status::IoError("park store: cannot write " + path + ": " + why);
  }
  touch(key);
  ++file_count(kind);
  stats_.bytes += file_bytes(kind);
  ++stats_.parks;
  stats_.bytes_written += file_bytes(kind);
  return true;
}

Status ParkStore::get(const BlockHash& hash, std::span<const int32_t> tokens, std::byte* data, ParkKind kind) {
  const FileKey key{hash, kind};
  if (index_.count(key) == 0) {
    return Status::NotFound(kind_name(kind) + hash.hex() + " is not parked");
  }
  const ParkIdentity id = file_identity(kind);
  std::string path = path_of(key);
  auto reject = [&](const std::string& why) {
    remove(key);
    ++stats_.corrupt;
    return Status::Corrupt("park store: " + path + ": " + why);
  };
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st;
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0) return reject("cannot open");
  if (static_cast<uint64_t>(st.st_size) != file_bytes(kind)) {
    return reject("size " + std::to_string(st.st_size) + " bytes, expected " + std::to_string(file_bytes(kind)));
  }
  std::vector<std::byte> prefix(park_prefix_bytes(id));
  if (!read_all(fd.get(), prefix.data(), prefix.size())) return reject("short read in header");
  Result<ParkPrefix> decoded = decode_park_prefix(kind, prefix.data(), prefix.size(), path);
  if (!decoded.ok()) return reject(decoded.status().message());
  if (!(decoded->identity == id)) return reject("written for another model or K/V layout");
  if (!(decoded->key == hash)) return reject("key in header differs from the file name");
  if (!std::equal(tokens.begin(), tokens.end(), decoded->tokens.begin(), decoded->tokens.end())) {
    return reject("token ids differ from the requested block");
  }
  if (!read_all(fd.get(), data, id.block_bytes)) return reject("short read in the payload");
  if (hash_bytes64(data, id.block_bytes, kPayloadSeed) != decoded->payload_checksum) {
    return reject(kind == ParkKind::kState ? "state checksum mismatch" : "K/V checksum mismatch");
  }
  touch(key);
  ++stats_.restores;
  return Status::Ok();
}

}  // namespace strata
