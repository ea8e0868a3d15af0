#include "gguf/gguf_file.h"

#include <utility>

#include "gguf/gguf_parser.h"
#include "gguf/gguf_split.h"

namespace strata {

namespace {

constexpr uint64_t kMaxSplitParts = 99999;  // five digits in the file name

}  // namespace

Status GgufFile::absorb(GgufPart part, const std::string& name) {
  if (version_ == 0) {
    version_ = part.version;
    alignment_ = part.alignment;
    metadata_ = std::move(part.metadata);
  }
  tensors_.reserve(tensors_.size() + part.tensors.size());
  for (auto& t : part.tensors) {
    if (!tensor_index_.emplace(t.name, tensors_.size()).second) {
      return Status::Corrupt(name + ": tensor '" + t.name + "' also appears in an earlier split part");
    }
    tensors_.push_back(std::move(t));
  }
  return Status::Ok();
}

Result<GgufFile> GgufFile::Parse(const uint8_t* data, size_t size, const std::string& name) {
  GgufFile file;
  file.path_ = name;
  STRATA_ASSIGN_OR_RETURN(GgufPart part, parse_gguf_part(data, size, name, 0));
  STRATA_RETURN_IF_ERROR(file.absorb(std::move(part), name));
  return file;
}

Result<GgufFile> GgufFile::Open(const std::string& path) {
  GgufFile file;
  file.path_ = path;
  auto add_part = [&file](const std::string& part_path, int part_index) -> Status {
    STRATA_ASSIGN_OR_RETURN(MappedFile mapped, MappedFile::Open(part_path));
    auto shared = std::make_shared<MappedFile>(std::move(mapped));
    STRATA_ASSIGN_OR_RETURN(GgufPart part, parse_gguf_part(shared->data(), shared->size(), part_path, part_index));
    file.parts_.push_back(std::move(shared));
    return file.absorb(std::move(part), part_path);
  };
  STRATA_RETURN_IF_ERROR(add_part(path, 0));

  auto split = parse_split_path(path);
  auto meta_count = file.get_uint("split.count");
  uint64_t n_parts = meta_count ? *meta_count : (split ? split->n_parts : 1);
  if (n_parts > 1) {
    if (n_parts > kMaxSplitParts) {
      return Status::Corrupt(path + ": split.count " + std::to_string(n_parts) + " is absurd");
    }
    if (!split) {
      return Status::InvalidArgument(path + ": split.count is " + std::to_string(n_parts) +
                                     " but the name does not end in -00001-of-NNNNN.gguf");
    }
    if (split->part_no != 1) {
      return Status::InvalidArgument(path + ": this is part " + std::to_string(split->part_no) + " of " +
                                     std::to_string(split->n_parts) + "; open the first part");
    }
    if (static_cast<uint64_t>(split->n_parts) != n_parts) {
      return Status::Corrupt(path + ": split.count " + std::to_string(n_parts) + " disagrees with the file name");
    }
    for (int i = 2; i <= split->n_parts; ++i) {
      STRATA_RETURN_IF_ERROR(add_part(split_path(split->prefix, i, split->n_parts), i - 1));
    }
  }
  file.n_parts_ = static_cast<int>(n_parts);
  auto declared = file.find("split.tensors.count");
  if (declared && declared->as_uint() && *declared->as_uint() != file.tensors_.size()) {
    return Status::Corrupt(path + ": split.tensors.count says " + std::to_string(*declared->as_uint()) +
                           " tensors but the parts hold " + std::to_string(file.tensors_.size()));
  }
  return file;
}

const GgufValue* GgufFile::find(std::string_view key) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::optional<uint64_t> GgufFile::get_uint(std::string_view key) const {
  const GgufValue* v = find(key);
  return v ? v->as_uint() : std::nullopt;
}

std::optional<double> GgufFile::get_float(std::string_view key) const {
  const GgufValue* v = find(key);
  return v ? v->as_float() : std::nullopt;
}

std::optional<bool> GgufFile::get_bool(std::string_view key) const {
  const GgufValue* v = find(key);
  return v ? v->as_bool() : std::nullopt;
}

std::optional<std::string> GgufFile::get_string(std::string_view key) const {
  const GgufValue* v = find(key);
  if (v == nullptr || v->as_string() == nullptr) return std::nullopt;
  return *v->as_string();
}

const GgufValue* GgufFile::get_array(std::string_view key) const {
  const GgufValue* v = find(key);
  return v && v->is_array() ? v : nullptr;
}

const GgufTensor* GgufFile::find_tensor(std::string_view name) const {
  auto it = tensor_index_.find(std::string(name));
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

uint64_t GgufFile::total_tensor_bytes() const {
  uint64_t total = 0;
  for (const auto& t : tensors_) total += t.n_bytes;
  return total;
}

void GgufFile::release_pages(const void* p, size_t n_bytes) const {
  const auto* bytes = static_cast<const uint8_t*>(p);
  for (const auto& part : parts_) {
    if (bytes >= part->data() && bytes + n_bytes <= part->data() + part->size()) part->release_pages(p, n_bytes);
  }
}

}  // namespace strata
