// Writes small valid GGUF files into a directory, as seeds for the gguf fuzzer: every value
// type, nested arrays, several tensor types (the ternary ones and I2_S among them), a non-default
// alignment. Usage: DIR.
#include <cstdio>
#include <string>
#include <vector>

#include "gguf/gguf_writer.h"

namespace {

std::vector<uint8_t> bytes(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 13 + 1);
  return v;
}

strata::GgufWriter values_seed() {
  using strata::GgufType;
  using strata::GgufValue;
  strata::GgufWriter w;
  GgufValue i64;
  i64.type = GgufType::kI64;
  i64.i = -5;
  GgufValue f64;
  f64.type = GgufType::kF64;
  f64.f = 2.5;
  w.set("general.architecture", GgufValue::String("llama"));
  w.set("a.u32", GgufValue::U32(7));
  w.set("a.u64", GgufValue::U64(1) );
  w.set("a.i32", GgufValue::I32(-1));
  w.set("a.f32", GgufValue::F32(0.5f));
  w.set("a.bool", GgufValue::Bool(true));
  w.set("a.i64", i64);
  w.set("a.f64", f64);
  w.set("a.strs", GgufValue::StringArray({"<s>", "</s>", "x"}));
  w.set("a.nested", GgufValue::Array(GgufType::kArray, {GgufValue::I32Array({1, 2}), GgufValue::I32Array({3})}));
  return w;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  strata::GgufWriter meta = values_seed();
  strata::GgufWriter tensors = values_seed();
  tensors.add_tensor_bytes("f32", strata::DType::kF32, {4, 2}, bytes(32));
  tensors.add_tensor_bytes("q8", strata::DType::kQ8_0, {32}, bytes(34));
  tensors.add_tensor_bytes("q4k", strata::DType::kQ4_K, {256}, bytes(144));
  tensors.add_tensor_bytes("q6k", strata::DType::kQ6_K, {256}, bytes(210));
  tensors.add_tensor_bytes("q5_0", strata::DType::kQ5_0, {32, 1, 1, 1}, bytes(22));
  tensors.add_tensor_bytes("tq1", strata::DType::kTQ1_0, {256}, bytes(54));
  tensors.add_tensor_bytes("tq2", strata::DType::kTQ2_0, {256}, bytes(66));
  tensors.add_tensor_bytes("i2s", strata::DType::kI2_S, {256, 2}, bytes(512 / 4 + 32));
  strata::GgufWriter aligned = tensors;
  aligned.set_alignment(64);
  for (auto& [w, name] : {std::pair{&meta, "meta.gguf"}, {&tensors, "tensors.gguf"}, {&aligned, "aligned.gguf"}}) {
    strata::Status st = w->write(dir + "/" + name);
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", st.ToString().c_str());
      return 1;
    }
  }
  return 0;
}
