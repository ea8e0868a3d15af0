#include "model/xielu_hparams.h"

#include <cmath>
#include <string>
#include <vector>

#include "model/metadata_readers.h"

namespace strata {
namespace {

// key: a finite number per layer, or one for every layer.
Status read_value_per_layer(const GgufFile& gguf, const std::string& key, int n_layer, std::vector<float>* out) {
  const GgufValue* v = gguf.find(key);
  if (v == nullptr) return Status::NotFound(gguf.path() + ": missing metadata key " + key);
  if (v->is_array()) return read_per_layer_reals(gguf, key, n_layer, out);
  float value = 0.0f;
  STRATA_RETURN_IF_ERROR(read_real(gguf, key, &value));
  out->assign(static_cast<size_t>(n_layer), value);
  return Status::Ok();
}

// ggml's softplus: log(1 + e^x), x itself past 20 (where the two agree in float).
float softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

}  // namespace

Status read_xielu(const GgufFile& gguf, Hparams* hp) {
  STRATA_RETURN_IF_ERROR(read_value_per_layer(gguf, "xielu.alpha_n", hp->n_layer, &hp->xielu_alpha_n));
  STRATA_RETURN_IF_ERROR(read_value_per_layer(gguf, "xielu.alpha_p", hp->n_layer, &hp->xielu_alpha_p));
  STRATA_RETURN_IF_ERROR(read_value_per_layer(gguf, "xielu.beta", hp->n_layer, &hp->xielu_beta));
  STRATA_RETURN_IF_ERROR(read_value_per_layer(gguf, "xielu.eps", hp->n_layer, &hp->xielu_eps));
  for (size_t l = 0; l < hp->xielu_beta.size(); ++l) {
    hp->xielu_alpha_p[l] = softplus(hp->xielu_alpha_p[l]);
    hp->xielu_alpha_n[l] = hp->xielu_beta[l] + softplus(hp->xielu_alpha_n[l]);
  }
  hp->ffn_xielu = true;
  return Status::Ok();
}

}  // namespace strata
