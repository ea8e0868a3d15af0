#include "tokenizer/tokenizer_spec.h"

#include <string_view>

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"

namespace strata {
namespace {

std::string where(const GgufFile& gguf, std::string_view key) {
  return gguf.path() + ": " + std::string(key);
}

// An optional array: nullptr when the key is absent; an error when present but not an array.
Result<const GgufValue*> optional_array(const GgufFile& gguf, std::string_view key) {
  const GgufValue* value = gguf.find(key);
  if (value == nullptr || value->is_array()) return value;
  return Status::Corrupt(where(gguf, key) + ": expected an array, found " + gguf_type_name(value->type));
}

std::string element(const GgufFile& gguf, std::string_view key, size_t i) {
  return where(gguf, key) + ": element " + std::to_string(i);
}

Status read_strings(const GgufFile& gguf, std::string_view key, std::vector<std::string>* out) {
  STRATA_ASSIGN_OR_RETURN(const GgufValue* items, optional_array(gguf, key));
  if (items == nullptr) return Status::Ok();
  if (items->elem_type == GgufType::kString && items->array.empty()) {  // kept by kind: copied whole
    *out = items->array_str;
    return Status::Ok();
  }
  out->reserve(items->array_size());
  for (size_t i = 0; i < items->array_size(); ++i) {
    const std::string* s = items->string_at(i);
    if (s == nullptr) return Status::Corrupt(element(gguf, key, i) + " is not a string");
    out->push_back(*s);
  }
  return Status::Ok();
}

Status read_scores(const GgufFile& gguf, std::vector<float>* out) {
  static constexpr std::string_view kKey = "tokenizer.ggml.scores";
  STRATA_ASSIGN_OR_RETURN(const GgufValue* items, optional_array(gguf, kKey));
  if (items == nullptr) return Status::Ok();
  out->reserve(items->array_size());
  for (size_t i = 0; i < items->array_size(); ++i) {
    std::optional<double> f = items->float_at(i);
    if (!f) return Status::Corrupt(element(gguf, kKey, i) + " is not a number");
    out->push_back(static_cast<float>(*f));
  }
  return Status::Ok();
}

Status read_types(const GgufFile& gguf, std::vector<int32_t>* out) {
  static constexpr std::string_view kKey = "tokenizer.ggml.token_type";
  STRATA_ASSIGN_OR_RETURN(const GgufValue* items, optional_array(gguf, kKey));
  if (items == nullptr) return Status::Ok();
  out->reserve(items->array_size());
  for (size_t i = 0; i < items->array_size(); ++i) {
    std::optional<int64_t> t = items->int_at(i);
    if (!t || *t < 0 || *t > static_cast<int64_t>(TokenType::kByte)) {
      return Status::Corrupt(element(gguf, kKey, i) + " is not a token type (0..6)");
    }
    out->push_back(static_cast<int32_t>(*t));
  }
  return Status::Ok();
}

Status read_id(const GgufFile& gguf, std::string_view key, int32_t* out) {
  const GgufValue* value = gguf.find(key);
  if (value == nullptr) return Status::Ok();
  std::optional<int64_t> id = value->as_int();
  if (!id) return Status::Corrupt(where(gguf, key) + ": expected an integer token id");
  // Some converters write "none" as -1 or as 0xFFFFFFFF in a u32.
  if (*id < 0 || *id == 0xFFFFFFFFll) return Status::Ok();
  if (*id > INT32_MAX) return Status::Corrupt(where(gguf, key) + ": token id " + std::to_string(*id) + " too large");
  *out = static_cast<int32_t>(*id);
  return Status::Ok();
}

Status read_flag(const GgufFile& gguf, std::string_view key, std::optional<bool>* out) {
  const GgufValue* value = gguf.find(key);
  if (value == nullptr) return Status::Ok();
  std::optional<bool> flag = value->as_bool();
  if (!flag) return Status::Corrupt(where(gguf, key) + ": expected a bool, found " + gguf_type_name(value->type));
  *out = flag;
  return Status::Ok();
}

}  // namespace

Result<TokenizerSpec> read_tokenizer_spec(const GgufFile& gguf) {
  TokenizerSpec spec;
  const GgufValue* model = gguf.find("tokenizer.ggml.model");
  if (model == nullptr || model->as_string() == nullptr) {
    return Status::NotFound(where(gguf, "tokenizer.ggml.model") +
                            ": missing or not a string; the file has no tokenizer");
  }
  spec.model = *model->as_string();
  if (const GgufValue* pre = gguf.find("tokenizer.ggml.pre"); pre != nullptr && pre->as_string() != nullptr) {
    spec.pre = *pre->as_string();
  }
  STRATA_RETURN_IF_ERROR(read_strings(gguf, "tokenizer.ggml.tokens", &spec.tokens));
  STRATA_RETURN_IF_ERROR(read_scores(gguf, &spec.scores));
  STRATA_RETURN_IF_ERROR(read_types(gguf, &spec.token_types));
  STRATA_RETURN_IF_ERROR(read_strings(gguf, "tokenizer.ggml.merges", &spec.merges));
  STRATA_RETURN_IF_ERROR(read_id(gguf, "tokenizer.ggml.bos_token_id", &spec.bos_id));
  STRATA_RETURN_IF_ERROR(read_id(gguf, "tokenizer.ggml.eos_token_id", &spec.eos_id));
  STRATA_RETURN_IF_ERROR(read_id(gguf, "tokenizer.ggml.unknown_token_id", &spec.unk_id));
  STRATA_RETURN_IF_ERROR(read_id(gguf, "tokenizer.ggml.padding_token_id", &spec.pad_id));
  STRATA_RETURN_IF_ERROR(read_id(gguf, "tokenizer.ggml.eot_token_id", &spec.eot_id));
  STRATA_RETURN_IF_ERROR(read_id(gguf, "tokenizer.ggml.eom_token_id", &spec.eom_id));
  STRATA_RETURN_IF_ERROR(read_flag(gguf, "tokenizer.ggml.add_bos_token", &spec.add_bos));
  STRATA_RETURN_IF_ERROR(read_flag(gguf, "tokenizer.ggml.add_eos_token", &spec.add_eos));
  STRATA_RETURN_IF_ERROR(read_flag(gguf, "tokenizer.ggml.add_space_prefix", &spec.add_space_prefix));
  return spec;
}

void add_tokenizer_spec(const TokenizerSpec& spec, GgufWriter* writer) {
  writer->set("tokenizer.ggml.model", GgufValue::String(spec.model));
  if (!spec.pre.empty()) writer->set("tokenizer.ggml.pre", GgufValue::String(spec.pre));
  writer->set("tokenizer.ggml.tokens", GgufValue::StringArray(spec.tokens));
  if (!spec.scores.empty()) writer->set("tokenizer.ggml.scores", GgufValue::F32Array(spec.scores));
  if (!spec.token_types.empty()) writer->set("tokenizer.ggml.token_type", GgufValue::I32Array(spec.token_types));
  if (!spec.merges.empty()) writer->set("tokenizer.ggml.merges", GgufValue::StringArray(spec.merges));
  const std::pair<const char*, int32_t> ids[] = {
      {"tokenizer.ggml.bos_token_id", spec.bos_id},     {"tokenizer.ggml.eos_token_id", spec.eos_id},
      {"tokenizer.ggml.unknown_token_id", spec.unk_id}, {"tokenizer.ggml.padding_token_id", spec.pad_id},
      {"tokenizer.ggml.eot_token_id", spec.eot_id},     {"tokenizer.ggml.eom_token_id", spec.eom_id},
  };
  for (const auto& [key, id] : ids) {
    if (id >= 0) writer->set(key, GgufValue::U32(static_cast<uint32_t>(id)));
  }
  const std::pair<const char*, std::optional<bool>> flags[] = {
      {"tokenizer.ggml.add_bos_token", spec.add_bos},
      {"tokenizer.ggml.add_eos_token", spec.add_eos},
      {"tokenizer.ggml.add_space_prefix", spec.add_space_prefix},
  };
  for (const auto& [key, flag] : flags) {
    if (flag) writer->set(key, GgufValue::Bool(*flag));
  }
}

}  // namespace strata
