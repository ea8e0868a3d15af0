#include "model/deci_hparams.h"

#include <algorithm>
#include <string>
#include <vector>

#include "model/metadata_readers.h"

namespace strata {
Result<int> deci_query_heads(const GgufFile& gguf, const std::string& arch) {
  const std::string key = arch + ".attention.head_count";
  const GgufValue* v = gguf.find(key);
  if (v == nullptr) return Status::NotFound(gguf.path() + ": missing metadata key " + key);
  for (size_t i = 0; i < (v->is_array() ? v->array_size() : 1); ++i) {
    std::optional<uint64_t> u = v->is_array() ? v->uint_at(i) : v->as_uint();
    if (!u || *u > (1u << 30)) return Status::Corrupt(gguf.path() + ": " + key + " is not a count");
    if (*u > 0) return static_cast<int>(*u);
  }
  return Status::Unsupported(gguf.path() + ": " + key + " gives no layer any heads; a model needs one that attends");
}

Status read_deci(const GgufFile& gguf, Hparams* hp) {
  const std::string& a = hp->arch;
  const std::string& f = gguf.path();
  std::vector<uint64_t> heads, kv_heads, widths;
  STRATA_RETURN_IF_ERROR(read_counts_per_layer(gguf, a + ".attention.head_count", hp->n_layer, &heads));
  STRATA_RETURN_IF_ERROR(read_counts_per_layer(gguf, a + ".attention.head_count_kv", hp->n_layer, &kv_heads));
  STRATA_RETURN_IF_ERROR(read_counts_per_layer(gguf, a + ".feed_forward_length", hp->n_layer, &widths));
  hp->n_head_kv = 0;
  int n_attending = 0;
  for (int l = 0; l < hp->n_layer; ++l) {
    const auto i = static_cast<size_t>(l);
    AttnKind kind = heads[i] == 0 ? AttnKind::kNone : kv_heads[i] == 0 ? AttnKind::kLinear : AttnKind::kAttention;
    if (heads[i] == 0 && kv_heads[i] != 0) {
      return Status::Corrupt(f + ": layer " + std::to_string(l) + " has K/V heads but no query heads");
    }
    if (kind == AttnKind::kAttention) {
      if (hp->n_head_kv == 0) hp->n_head_kv = static_cast<int>(kv_heads[i]);
      if (static_cast<int>(heads[i]) != hp->n_head || static_cast<int>(kv_heads[i]) != hp->n_head_kv) {
        return Status::Unsupported(f + ": layer " + std::to_string(l) + " attends with " + std::to_string(heads[i]) +
                                   " query and " + std::to_string(kv_heads[i]) + " K/V heads, another layer with " +
                                   std::to_string(hp->n_head) + " and " + std::to_string(hp->n_head_kv) +
                                   "; one shape for every attending layer is supported");
      }
    }
    hp->layer_attn.push_back(kind);
    hp->attn_kv_index.push_back(kind == AttnKind::kAttention ? n_attending++ : -1);
    hp->layer_n_ff.push_back(static_cast<int>(widths[i]));
  }
  if (n_attending == 0) {
    return Status::Unsupported(f + ": no layer of " + a + " attends with K/V heads; a model needs one");
  }
  hp->n_ff = static_cast<int>(*std::max_element(widths.begin(), widths.end()));
  return Status::Ok();
}

}  // namespace strata
