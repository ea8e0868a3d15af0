#include "modelgen/model_quantizer.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <optional>
#include <thread>

#include "base/thread_pool.h"
#include "gguf/file_type.h"
#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "modelgen/type_mix.h"
#include "tensor/quantize.h"

namespace strata {

namespace {

bool is_float(DType t) { return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16; }

// The file type of a name, or why it cannot be made here.
Result<uint32_t> parse_file_type(const std::string& name) {
  if (auto ft = mix_file_type(name)) return *ft;
  for (uint32_t id = 0; id < 64; ++id) {
    const std::string_view known = file_type_name(id);
    if (known == "unknown" || mix_file_type(known)) continue;
    if (name.size() == known.size() && std::equal(name.begin(), name.end(), known.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        })) {
      return Status::Unsupported(std::string(known) +
                                 " needs an importance matrix to be usable, and strata quantize has none "
                                 "(use llama-quantize --imatrix); strata quantize makes: " + mix_names());
    }
  }
  return Status::InvalidArgument("unknown type '" + name + "'; strata quantize makes: " + mix_names());
}

// ggml counts dims up to the last one above 1: a [288, 1] tensor is a vector.
size_t n_dims_of(const GgufTensor& t) {
  size_t n = 1;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (t.dims[i] > 1) n = i + 1;
  }
  return n;
}

// A count given once or per layer (an array): layer `layer`'s, or nullopt when the key is absent.
std::optional<uint64_t> layer_count(const GgufFile& file, const std::string& key, size_t layer) {
  if (const GgufValue* a = file.get_array(key); a != nullptr) {
    return layer < a->array_size() ? a->uint_at(layer) : std::nullopt;
  }
  return file.get_uint(key);
}

MixModel mix_model(const GgufFile& file) {
  const std::string arch = file.get_string("general.architecture").value_or("");
  MixModel m;
  m.n_layer = static_cast<int>(file.get_uint(arch + ".block_count").value_or(0));
  m.n_expert = static_cast<int>(file.get_uint(arch + ".expert_count").value_or(0));
  // llama.cpp's hparams.n_gqa(): layer 0's heads over its K/V heads, 0 when it has none.
  const uint64_t n_head = layer_count(file, arch + ".attention.head_count", 0).value_or(1);
  const uint64_t n_head_kv = layer_count(file, arch + ".attention.head_count_kv", 0).value_or(n_head);
  m.n_gqa = n_head_kv > 0 ? static_cast<int>(n_head / n_head_kv) : 0;
  m.has_output = file.find_tensor("output.weight") != nullptr;
  const bool hybrid = file.get_uint(arch + ".ssm.conv_kernel").has_value();
  const bool short_conv = file.get_uint(arch + ".shortconv.l_cache").has_value();  // LFM2
  const GgufValue* kv_heads = file.get_array(arch + ".attention.head_count_kv");
  // Granite 4.0-H, Nemotron-H, LFM2: attn_v where a layer has K/V heads. Ling 3.0 and Kimi Linear (their
  // kda.head_dim): where it has none, the KDA layers; their latent layers have no tensor named attn_v.
  const bool kda = file.get_uint(arch + ".kda.head_dim").has_value();
  if ((hybrid || short_conv) && kv_heads != nullptr) {
    for (size_t l = 0; l < kv_heads->array_size(); ++l) {
      if ((kv_heads->uint_at(l).value_or(0) > 0) != kda) m.attn_v_layers.push_back(static_cast<int>(l));
    }
    // Nemotron-H: ffn_down where a layer has a feed-forward width.
    if (const GgufValue* widths = file.get_array(arch + ".feed_forward_length"); widths != nullptr) {
      for (size_t l = 0; l < widths->array_size(); ++l) {
        if (widths->uint_at(l).value_or(0) > 0) m.ffn_down_layers.push_back(static_cast<int>(l));
      }
    }
    return m;
  }
  // A delta-net hybrid file without the key attends in every 4th layer, as llama.cpp and Strata's
  // hparams read it (Qwen3-Next's files carry none). Falcon-H1's Mamba-2 layers attend too: an attn_v in
  // every layer, which llama.cpp numbers by layer as in a model without Mamba-2.
  int n_attn_v = 0;
  for (const GgufTensor& t : file.tensors()) n_attn_v += t.name.ends_with(".attn_v.weight") ? 1 : 0;
  const bool every_layer_attends = n_attn_v == m.n_layer;
  m.full_attn_interval = static_cast<int>(
      file.get_uint(arch + ".full_attention_interval").value_or(hybrid && !every_layer_attends ? 4 : 0));
  return m;
}

Result<QuantizeReport> plan_file(const GgufFile& file, uint32_t ft) {
  QuantizeReport report;
  report.file_type = ft;
  const MixModel model = mix_model(file);
  for (const GgufTensor& t : file.tensors()) {
    QuantizedTensor q{t.name, t.type, t.type, ""};
    if (is_quantizable_tensor(t.name, n_dims_of(t))) {
      if (!is_float(t.type)) {
        return Status::InvalidArgument(file.path() + ": tensor " + t.name + " is " + std::string(dtype_name(t.type)) +
                                       "; strata quantize reads F32, F16 or BF16 models only");
      }
      const DType wanted = mix_tensor_type(ft, model, t.name, t.dims[0]);
      q.to = width_fallback(wanted, t.dims[0]);
      if (q.to != wanted) {
        q.fallback = "width " + std::to_string(t.dims[0]) + " is not whole " + std::string(dtype_name(wanted)) +
                     " blocks of " + std::to_string(dtype_info(wanted).block_size);
      }
    }
    report.n_bytes_in += t.n_bytes;
    report.n_bytes_out += dtype_row_bytes(q.to, t.n_elements).value_or(0);
    report.tensors.push_back(std::move(q));
  }
  return report;
}

// Re-encodes tensor t from its float type into `to`, rows spread over the pool. Cannot fail
// for a planned tensor (float in, width checked); a failure is still recorded.
void convert_tensor(const GgufTensor& t, DType to, ThreadPool& pool, uint8_t* dst, std::atomic<bool>* failed) {
  const uint64_t n_in = t.dims[0];
  const uint64_t n_rows = t.n_elements / n_in;
  const size_t in_row_bytes = *dtype_row_bytes(t.type, n_in);
  const size_t out_row_bytes = *dtype_row_bytes(to, n_in);
  const uint64_t rows_per_task = std::max<uint64_t>(1, n_rows / (static_cast<uint64_t>(pool.size()) * 16));
  const int n_tasks = static_cast<int>((n_rows + rows_per_task - 1) / rows_per_task);
  std::vector<std::vector<float>> scratch(pool.size(), std::vector<float>(n_in));
  pool.parallel_for(n_tasks, [&](int task, int thread) {
    float* x = scratch[thread].data();
    const uint64_t end = std::min(n_rows, (task + 1) * rows_per_task);
    for (uint64_t r = task * rows_per_task; r < end; ++r) {
      const bool ok = dequantize_row(t.type, t.data + r * in_row_bytes, x, n_in).ok() &&
                      quantize_row(to, x, dst + r * out_row_bytes, n_in).ok();
      if (!ok) failed->store(true);
    }
  });
}

void copy_metadata(const GgufFile& file, uint32_t ft, GgufWriter* w) {
  for (const auto& [key, value] : file.metadata()) {
    if (key.rfind("split.", 0) == 0 || key == "general.alignment") continue;
    w->set(key, value);
  }
  w->set("general.file_type", GgufValue::U32(ft));
  w->set("general.quantization_version", GgufValue::U32(2));
  w->set_alignment(static_cast<uint32_t>(file.alignment()));
}

}  // namespace

Result<QuantizeReport> plan_quantize(const QuantizeOptions& o) {
  STRATA_ASSIGN_OR_RETURN(uint32_t ft, parse_file_type(o.file_type));
  STRATA_ASSIGN_OR_RETURN(GgufFile file, GgufFile::Open(o.in_path));
  return plan_file(file, ft);
}

Result<QuantizeReport> quantize_model(const QuantizeOptions& o) {
  if (o.out_path.empty()) return Status::InvalidArgument("quantize: no output path");
  STRATA_ASSIGN_OR_RETURN(uint32_t ft, parse_file_type(o.file_type));
  STRATA_ASSIGN_OR_RETURN(GgufFile file, GgufFile::Open(o.in_path));
  STRATA_ASSIGN_OR_RETURN(QuantizeReport report, plan_file(file, ft));
  GgufWriter w;
  copy_metadata(file, ft, &w);
  ThreadPool pool(o.n_threads > 0 ? o.n_threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  std::atomic<bool> failed{false};
  uint64_t done_bytes = 0;
  for (size_t i = 0; i < file.tensors().size(); ++i) {
    const GgufTensor& t = file.tensors()[i];
    const DType to = report.tensors[i].to;
    w.add_tensor(t.name, to, t.dims, [&, to](uint8_t* dst) {
      if (to == t.type) {
        std::memcpy(dst, t.data, t.n_bytes);
      } else {
        convert_tensor(t, to, pool, dst, &failed);
      }
      file.release_pages(t.data, t.n_bytes);
      done_bytes += t.n_bytes;
      if (o.progress) o.progress(done_bytes, report.n_bytes_in);
    });
  }
  STRATA_RETURN_IF_ERROR(w.write(o.out_path));
  if (failed.load()) {
    std::remove(o.out_path.c_str());
    return Status::Internal("quantize: encoding a tensor failed; " + o.out_path + " removed");
  }
  return report;
}

}  // namespace strata
