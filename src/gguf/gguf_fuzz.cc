// libFuzzer target for the GGUF reader (built by tests/fuzz, run by the gguf_fuzz ctest).
// Any input must either parse, with every tensor's bytes inside the input, or fail with a
// message naming the source; anything else (crash, sanitizer report, abort) is a finding.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "gguf/gguf_describe.h"
#include "gguf/gguf_file.h"
#include "tensor/i2s.h"
#include "tensor/quantize.h"

namespace {

constexpr uint64_t kMaxDecodedElements = 1 << 16;

void check_tensor(const strata::GgufTensor& t, const uint8_t* data, size_t size) {
  if (t.n_bytes == 0) return;
  if (t.data < data || t.data + t.n_bytes > data + size) std::abort();
  volatile uint8_t sink = t.data[0] ^ t.data[t.n_bytes - 1];
  (void)sink;
  // Decoders see arbitrary bytes too (shifts and scales of hostile blocks).
  if (strata::can_dequantize(t.type) && t.n_elements <= kMaxDecodedElements) {
    std::vector<float> out(t.n_elements);
    (void)strata::dequantize_row(t.type, t.data, out.data(), out.size());
  }
  // I2_S is read as TQ2_0 (tensor/i2s.h): hostile codes and scales, the scale at the tensor's end.
  if (t.type == strata::DType::kI2_S && t.n_elements <= kMaxDecodedElements) {
    std::vector<std::byte> tq2(t.n_elements / 256 * 66 + 66);
    (void)strata::i2s_to_tq2_0(reinterpret_cast<const std::byte*>(t.data), t.n_elements, tq2.data());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = strata::GgufFile::Parse(data, size, "fuzz.gguf");
  if (!file.ok()) {
    if (file.status().message().rfind("fuzz.gguf: ", 0) != 0) std::abort();
    return 0;
  }
  for (const auto& t : file->tensors()) check_tensor(t, data, size);
  volatile size_t n = strata::describe_gguf(*file, strata::DescribeOptions{}).size();
  (void)n;
  return 0;
}
