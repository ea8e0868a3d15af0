// quantize_model(): the library part of `strata quantize IN.gguf OUT.gguf TYPE`. Reads an
// F32 / F16 / BF16 GGUF model and writes it with its matrices in a llama.cpp file type's mix
// (type_mix.h: Q4_K_M gives output.weight Q6_K, some attn_v / ffn_down Q6_K...), rows encoded
// by the scalar round-to-nearest quantizers of src/tensor, spread over a thread pool.
//
// Everything else is kept: every metadata key but general.file_type (set to the mix),
// general.quantization_version (2) and split.* (one file is written), and every tensor that
// is not quantized (norms, biases, routers) in its own type and order. The output is written
// to OUT.tmp and renamed, so a failed run leaves no OUT file behind.
//
// Each call owns its thread pool; the progress callback runs on the calling thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "tensor/dtype.h"

namespace strata {

struct QuantizeOptions {
  std::string in_path;
  std::string out_path;
  std::string file_type;  // a mix name: "Q4_K_M", "q8_0", "IQ4_XS"... (type_mix.h)
  int n_threads = 0;      // 0: hardware concurrency
  // Called after each tensor with the input bytes read so far and in all.
  std::function<void(uint64_t done_bytes, uint64_t total_bytes)> progress;
};

struct QuantizedTensor {
  std::string name;
  DType from = DType::kF32;
  DType to = DType::kF32;
  std::string fallback;  // why `to` is not the mix's type (the row width), else empty
};

struct QuantizeReport {
  uint32_t file_type = 0;
  std::vector<QuantizedTensor> tensors;  // every tensor, in file order
  uint64_t n_bytes_in = 0;               // tensor data
  uint64_t n_bytes_out = 0;
};

// The plan without writing: which type each tensor would get (bad input is found here).
Result<QuantizeReport> plan_quantize(const QuantizeOptions& options);
Result<QuantizeReport> quantize_model(const QuantizeOptions& options);

}  // namespace strata
