#include "tokenizer/vocab_json.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "gguf/gguf_writer.h"

namespace strata {
namespace {

int32_t optional_id(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number_integer() ? j[key].get<int32_t>() : -1;
}

std::optional<bool> optional_flag(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_boolean()) return std::nullopt;
  return j[key].get<bool>();
}

}  // namespace

Result<TokenizerSpec> read_vocab_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(path + ": cannot open");
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::Corrupt(path + ": not a JSON object");
  for (const char* key : {"model", "tokens", "token_type", "merges"}) {
    if (!j.contains(key)) return Status::Corrupt(path + ": missing \"" + key + "\"");
  }
  if (!j["tokens"].is_array() || !j["token_type"].is_array() || !j["merges"].is_array()) {
    return Status::Corrupt(path + ": tokens, token_type and merges must be arrays");
  }
  if (!j["model"].is_string() || (j.contains("pre") && !j["pre"].is_string())) {
    return Status::Corrupt(path + ": model and pre must be strings");
  }
  TokenizerSpec spec;
  spec.model = j["model"].get<std::string>();
  spec.pre = j.value("pre", "");
  for (const auto& t : j["tokens"]) {
    if (!t.is_string()) {
      return Status::Corrupt(path + ": tokens[" + std::to_string(spec.tokens.size()) + "] is not a string");
    }
    spec.tokens.push_back(t.get<std::string>());
  }
  for (const auto& t : j["token_type"]) {
    if (!t.is_number_integer()) return Status::Corrupt(path + ": a token_type is not an integer");
    spec.token_types.push_back(t.get<int32_t>());
  }
  for (const auto& m : j["merges"]) {
    if (!m.is_string()) return Status::Corrupt(path + ": a merge is not a string");
    spec.merges.push_back(m.get<std::string>());
  }
  spec.bos_id = optional_id(j, "bos_token_id");
  spec.eos_id = optional_id(j, "eos_token_id");
  spec.eot_id = optional_id(j, "eot_token_id");
  spec.eom_id = optional_id(j, "eom_token_id");
  spec.pad_id = optional_id(j, "padding_token_id");
  spec.add_bos = optional_flag(j, "add_bos_token");
  spec.add_eos = optional_flag(j, "add_eos_token");
  spec.add_space_prefix = optional_flag(j, "add_space_prefix");
  spec.unk_id = optional_id(j, "unknown_token_id");
  if (j.contains("scores")) {
    if (!j["scores"].is_array() || j["scores"].size() != spec.tokens.size()) {
      return Status::Corrupt(path + ": scores must be an array with one number per token");
    }
    for (const auto& s : j["scores"]) {
      if (!s.is_number()) return Status::Corrupt(path + ": a score is not a number");
      spec.scores.push_back(s.get<float>());
    }
  }
  return spec;
}

Status write_vocab_gguf(const TokenizerSpec& spec, const std::string& architecture, const std::string& path) {
  GgufWriter writer;
  writer.set("general.architecture", GgufValue::String(architecture));
  add_tokenizer_spec(spec, &writer);
  return writer.write(path);
}

}  // namespace strata
