#include "model/metadata_readers.h"

#include <cmath>
#include <optional>

namespace strata {

Status read_int(const GgufFile& gguf, const std::string& arch, std::string_view suffix, bool missing_ok, int min_value,
                int* out) {
  const std::string key = arch + "." + std::string(suffix);
  const GgufValue* v = gguf.find(key);
  if (v == nullptr) {
    if (missing_ok) return Status::Ok();
    return Status::NotFound(gguf.path() + ": missing metadata key " + key);
  }
  if (v->is_array()) {
    return Status::Unsupported(gguf.path() + ": " + key + " is a per-layer array; only one value for all layers is supported");
  }
  std::optional<uint64_t> u = v->as_uint();
  if (!u || *u < static_cast<uint64_t>(min_value) || *u > (1u << 30)) {
    const std::string want = min_value == 1 ? "a positive integer" : "an integer >= " + std::to_string(min_value);
    return Status::Corrupt(gguf.path() + ": " + key + " must be " + want + ", got " +
                           (u ? std::to_string(*u) : std::string(gguf_type_name(v->type))));
  }
  *out = static_cast<int>(*u);
  return Status::Ok();
}

Status read_count(const GgufFile& gguf, const std::string& arch, std::string_view suffix, bool missing_ok, int* out) {
  return read_int(gguf, arch, suffix, missing_ok, 1, out);
}

Status read_real(const GgufFile& gguf, const std::string& key, float* out) {
  const GgufValue* v = gguf.find(key);
  if (v == nullptr) return Status::Ok();
  std::optional<double> f = v->as_float();
  if (!f || !std::isfinite(*f)) {
    return Status::Corrupt(gguf.path() + ": " + key + " must be a finite number");
  }
  *out = static_cast<float>(*f);
  return Status::Ok();
}

bool has_tensor(const GgufFile& gguf, const std::string& name) { return gguf.find_tensor(name) != nullptr; }

namespace {

// The array key's value, checked to hold n_values elements.
Result<const GgufValue*> per_layer_array(const GgufFile& gguf, const std::string& key, int n_values) {
  const GgufValue* v = gguf.find(key);
  if (v == nullptr) return Status::NotFound(gguf.path() + ": missing metadata key " + key);
  if (!v->is_array() || v->array_size() != static_cast<size_t>(n_values)) {
    return Status::Corrupt(gguf.path() + ": " + key + " must hold one value per layer (" + std::to_string(n_values) +
                           ")");
  }
  return v;
}

}  // namespace

Status read_per_layer(const GgufFile& gguf, const std::string& key, int n_values, std::vector<uint64_t>* out) {
  STRATA_ASSIGN_OR_RETURN(const GgufValue* v, per_layer_array(gguf, key, n_values));
  out->clear();
  for (size_t i = 0; i < v->array_size(); ++i) {
    std::optional<uint64_t> u = v->uint_at(i);
    if (!u || *u > (1u << 30)) {
      return Status::Corrupt(gguf.path() + ": " + key + "[" + std::to_string(i) + "] is not a count");
    }
    out->push_back(*u);
  }
  return Status::Ok();
}

Status read_counts_per_layer(const GgufFile& gguf, const std::string& key, int n_values, std::vector<uint64_t>* out) {
  const GgufValue* v = gguf.find(key);
  if (v == nullptr) return Status::NotFound(gguf.path() + ": missing metadata key " + key);
  if (v->is_array()) return read_per_layer(gguf, key, n_values, out);
  std::optional<uint64_t> u = v->as_uint();
  if (!u || *u > (1u << 30)) {
    return Status::Corrupt(gguf.path() + ": " + key + " must be a count per layer or one for all");
  }
  out->assign(static_cast<size_t>(n_values), *u);
  return Status::Ok();
}

Status read_per_layer_reals(const GgufFile& gguf, const std::string& key, int n_values, std::vector<float>* out) {
  STRATA_ASSIGN_OR_RETURN(const GgufValue* v, per_layer_array(gguf, key, n_values));
  out->clear();
  for (size_t i = 0; i < v->array_size(); ++i) {
    std::optional<double> f = v->float_at(i);
    if (!f || !std::isfinite(*f)) {
      return Status::Corrupt(gguf.path() + ": " + key + "[" + std::to_string(i) + "] is not a finite number");
    }
    out->push_back(static_cast<float>(*f));
  }
  return Status::Ok();
}

Status read_swiglu_limits(const GgufFile& gguf, const std::string& key, int n_blocks, int n_layer, bool scalar_ok,
                          std::vector<float>* out) {
  const GgufValue* v = gguf.find(key);
  if (v == nullptr) return Status::NotFound(gguf.path() + ": missing metadata key " + key);
  if (scalar_ok && !v->is_array()) {
    float limit = 0.0f;
    STRATA_RETURN_IF_ERROR(read_real(gguf, key, &limit));
    out->assign(static_cast<size_t>(n_layer), limit);
  } else {
    STRATA_RETURN_IF_ERROR(read_per_layer_reals(gguf, key, n_blocks, out));
    out->resize(static_cast<size_t>(n_layer));
  }
  for (float limit : *out) {
    if (!(limit >= 0.0f) || !std::isfinite(limit)) {
      return Status::Corrupt(gguf.path() + ": " + key + " must hold finite limits >= 0");
    }
  }
  return Status::Ok();
}

Status read_yarn_betas(const GgufFile& gguf, const std::string& arch, float* beta_fast, float* beta_slow) {
  STRATA_RETURN_IF_ERROR(read_real(gguf, arch + ".rope.scaling.yarn_beta_fast", beta_fast));
  STRATA_RETURN_IF_ERROR(read_real(gguf, arch + ".rope.scaling.yarn_beta_slow", beta_slow));
  if (!(*beta_fast > *beta_slow && *beta_slow > 0.0f)) {
    return Status::Corrupt(gguf.path() + ": " + arch + ".rope.scaling.yarn_beta_fast must exceed yarn_beta_slow, both > 0");
  }
  return Status::Ok();
}

Status read_required_positive(const GgufFile& gguf, const std::string& key, float* out) {
  if (gguf.find(key) == nullptr) return Status::NotFound(gguf.path() + ": missing metadata key " + key);
  STRATA_RETURN_IF_ERROR(read_real(gguf, key, out));
  if (!(*out > 0.0f)) return Status::Corrupt(gguf.path() + ": " + key + " must be a positive finite number");
  return Status::Ok();
}

}  // namespace strata
