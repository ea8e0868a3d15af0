#include "gguf/gguf_writer.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unordered_set>

#include "base/aligned_buffer.h"
#include "gguf/gguf_parser.h"
#include "gguf/gguf_value_writer.h"

namespace strata {

namespace {

constexpr uint32_t kWriteVersion = 3;

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

size_t align_up(size_t n, size_t alignment) { return (n + alignment - 1) / alignment * alignment; }

Status io_error(const std::string& path, const char* what) {
  return Status::IoError(path + ": " + what + ": " + std::strerror(errno));
}

Status write_bytes(FILE* f, const void* data, size_t n, const std::string& path) {
  if (n != 0 && std::fwrite(data, 1, n, f) != n) return io_error(path, "write");
  return Status::Ok();
}

Status write_padding(FILE* f, size_t n, const std::string& path) {
  static constexpr char kZeros[256] = {};
  while (n > 0) {
    size_t chunk = n < sizeof(kZeros) ? n : sizeof(kZeros);
    STRATA_RETURN_IF_ERROR(write_bytes(f, kZeros, chunk, path));
    n -= chunk;
  }
  return Status::Ok();
}

}  // namespace

void GgufWriter::set(std::string key, GgufValue value) {
  for (auto& [k, v] : metadata_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  metadata_.emplace_back(std::move(key), std::move(value));
}

void GgufWriter::erase(const std::string& key) {
  std::erase_if(metadata_, [&](const auto& kv) { return kv.first == key; });
}

void GgufWriter::add_tensor(std::string name, DType type, std::vector<uint64_t> dims, FillFn fill) {
  tensors_.push_back(PendingTensor{std::move(name), type, std::move(dims), std::move(fill)});
}

void GgufWriter::add_tensor_bytes(std::string name, DType type, std::vector<uint64_t> dims,
                                  std::vector<uint8_t> bytes) {
  auto shared = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  // The size is checked against the type at write(); a mismatch must not overrun dst.
  size_t n_elements = 1;
  for (uint64_t d : dims) n_elements *= d;
  size_t expected = dtype_tensor_bytes(type, n_elements).value_or(0);
  bool size_ok = shared->size() == expected;
  std::string key = name;
  add_tensor(std::move(name), type, std::move(dims), [shared, size_ok](uint8_t* dst) {
    if (size_ok) std::memcpy(dst, shared->data(), shared->size());
  });
  if (!size_ok) bad_tensor_bytes_.push_back(key);
}

void GgufWriter::set_alignment(uint32_t alignment) { alignment_ = alignment; }

Status GgufWriter::plan(std::vector<size_t>* n_bytes) const {
  if (alignment_ == 0 || (alignment_ & (alignment_ - 1)) != 0) {
    return Status::InvalidArgument("GGUF alignment " + std::to_string(alignment_) + " is not a power of two");
  }
  if (!bad_tensor_bytes_.empty()) {
    return Status::InvalidArgument("tensor '" + bad_tensor_bytes_.front() + "': byte count does not match its type and dims");
  }
  std::unordered_set<std::string> seen;
  for (const auto& t : tensors_) {
    if (!seen.insert(t.name).second) return Status::InvalidArgument("duplicate tensor name '" + t.name + "'");
    if (t.dims.empty() || t.dims.size() > kGgufMaxDims) {
      return Status::InvalidArgument("tensor '" + t.name + "' must have 1 to 4 dims");
    }
    uint64_t n_elements = 1;
    for (uint64_t d : t.dims) {
      if (d != 0 && n_elements > UINT64_MAX / d) return Status::InvalidArgument("tensor '" + t.name + "' is too large");
      n_elements *= d;
    }
    const DTypeInfo& info = dtype_info(t.type);
    auto bytes = dtype_tensor_bytes(t.type, n_elements);
    if (t.dims[0] % info.block_size != 0 || !bytes) {
      return Status::InvalidArgument("tensor '" + t.name + "': rows of " + std::to_string(t.dims[0]) +
                                     " elements are not whole " + std::string(info.name) + " blocks");
    }
    n_bytes->push_back(*bytes);
  }
  return Status::Ok();
}

Status GgufWriter::encode_header(const std::vector<size_t>& n_bytes, std::string* out) const {
  std::vector<std::pair<std::string, GgufValue>> metadata;
  for (const auto& kv : metadata_) {
    if (kv.first != "general.alignment") metadata.push_back(kv);
  }
  if (alignment_ != kGgufDefaultAlignment) metadata.emplace_back("general.alignment", GgufValue::U32(alignment_));

  append_pod(out, kGgufMagic);
  append_pod(out, kWriteVersion);
  append_pod<uint64_t>(out, tensors_.size());
  append_pod<uint64_t>(out, metadata.size());
  for (const auto& [key, value] : metadata) {
    append_gguf_string(out, key);
    append_pod(out, static_cast<uint32_t>(value.type));
    STRATA_RETURN_IF_ERROR(append_gguf_value(out, value, key));
  }
  uint64_t offset = 0;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const auto& t = tensors_[i];
    append_gguf_string(out, t.name);
    append_pod(out, static_cast<uint32_t>(t.dims.size()));
    for (uint64_t d : t.dims) append_pod(out, d);
    append_pod(out, static_cast<uint32_t>(t.type));
    append_pod(out, offset);
    offset = align_up(offset + n_bytes[i], alignment_);
  }
  return Status::Ok();
}

Status GgufWriter::write(const std::string& path) const {
  std::vector<size_t> n_bytes;
  STRATA_RETURN_IF_ERROR(plan(&n_bytes));
  std::string header;
  STRATA_RETURN_IF_ERROR(encode_header(n_bytes, &header));

  std::string tmp = path + ".tmp";
  FilePtr f(std::fopen(tmp.c_str(), "wb"));
  if (!f) return io_error(tmp, "open");
  Status st = write_contents(f.get(), tmp, header, n_bytes);
  if (st.ok() && std::fflush(f.get()) != 0) st = io_error(tmp, "flush");
  if (st.ok() && ::fsync(fileno(f.get())) != 0) st = io_error(tmp, "fsync");
  if (std::fclose(f.release()) != 0 && st.ok()) st = io_error(tmp, "close");
  if (st.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) st = io_error(path, "rename");
  if (!st.ok()) std::remove(tmp.c_str());
  return st;
}

Status GgufWriter::write_contents(FILE* f, const std::string& path, const std::string& header,
                                  const std::vector<size_t>& n_bytes) const {
  STRATA_RETURN_IF_ERROR(write_bytes(f, header.data(), header.size(), path));
  STRATA_RETURN_IF_ERROR(write_padding(f, align_up(header.size(), alignment_) - header.size(), path));
  size_t max_bytes = 0;
  for (size_t b : n_bytes) max_bytes = b > max_bytes ? b : max_bytes;
  AlignedBuffer buffer(max_bytes);
  for (size_t i = 0; i < tensors_.size(); ++i) {
    auto* dst = buffer.as<uint8_t>();
    if (n_bytes[i] != 0) {
      std::memset(dst, 0, n_bytes[i]);
      tensors_[i].fill(dst);
    }
    STRATA_RETURN_IF_ERROR(write_bytes(f, dst, n_bytes[i], path));
    STRATA_RETURN_IF_ERROR(write_padding(f, align_up(n_bytes[i], alignment_) - n_bytes[i], path));
  }
  return Status::Ok();
}

}  // namespace strata
