#include "model/bitnet_hparams.h"

#include <string>
#include <string_view>

namespace strata {

Status read_bitnet(const GgufFile& gguf, bool relu_sq_default, Hparams* hp) {
  hp->sub_norms = true;
  hp->ffn_relu_sq_gated = relu_sq_default;
  const std::string key = hp->arch + ".hidden_activation";
  const GgufValue* v = gguf.find(key);
  if (v == nullptr) return Status::Ok();
  const std::string* name = v->as_string();
  if (name == nullptr) return Status::Corrupt(gguf.path() + ": metadata key " + key + " is not a string");
  const std::string_view n = *name;
  if (n == "silu" || n == "swish" || n == "swiglu") {
    hp->ffn_relu_sq_gated = false;
  } else if (n == "relu2" || n == "relu_squared") {
    hp->ffn_relu_sq_gated = true;
  } else {
    return Status::Unsupported(gguf.path() + ": " + key + " '" + *name +
                               "' is not supported (silu, swish, swiglu, relu2, relu_squared)");
  }
  return Status::Ok();
}

}  // namespace strata
