// GgufWriter round trips: write -> GgufFile::Open gives the same metadata and tensor bytes.
#include "gguf/gguf_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "gguf/gguf_file.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

class GgufWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-gguf-writer-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7);
  return v;
}

GgufValue u8(uint8_t v) {
  GgufValue x;
  x.type = GgufType::kU8;
  x.u = v;
  return x;
}

TEST_F(GgufWriterTest, SetReplacesAndEraseRemovesAKey) {
  GgufWriter w;
  w.set("a", GgufValue::U32(1));
  w.set("b", GgufValue::U32(2));
  w.set("a", GgufValue::U32(3));
  w.erase("b");
  w.erase("absent");
  ASSERT_TRUE(w.write(path("erase.gguf")).ok());
  auto f = GgufFile::Open(path("erase.gguf"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->get_uint("a"), 3u);
  EXPECT_EQ(f->find("b"), nullptr);
}

TEST_F(GgufWriterTest, EveryValueTypeRoundTrips) {
  GgufWriter w;
  GgufValue i8, u16, i16, i64, f64;
  i8.type = GgufType::kI8, i8.i = -5;
  u16.type = GgufType::kU16, u16.u = 65535;
  i16.type = GgufType::kI16, i16.i = -30000;
  i64.type = GgufType::kI64, i64.i = -(int64_t{1} << 40);
  f64.type = GgufType::kF64, f64.f = 0.1;
  w.set("t.u8", u8(200));
  w.set("t.i8", i8);
  w.set("t.u16", u16);
  w.set("t.i16", i16);
  w.set("t.u32", GgufValue::U32(4000000000u));
  w.set("t.i32", GgufValue::I32(-7));
  w.set("t.f32", GgufValue::F32(1.5f));
  w.set("t.bool", GgufValue::Bool(true));
  w.set("t.str", GgufValue::String(std::string("with\0nul", 8)));
  w.set("t.u64", GgufValue::U64(~uint64_t{0}));
  w.set("t.i64", i64);
  w.set("t.f64", f64);
  w.set("t.strs", GgufValue::StringArray({"a", "", "ccc"}));
  w.set("t.floats", GgufValue::F32Array({0.25f, -2.0f}));
  w.set("t.nested", GgufValue::Array(GgufType::kArray, {GgufValue::I32Array({1, 2}), GgufValue::I32Array({})}));
  w.set("t.empty", GgufValue::Array(GgufType::kU8, {}));
  ASSERT_TRUE(w.write(path("values.gguf")).ok());

  auto f = GgufFile::Open(path("values.gguf"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->version(), 3u);
  ASSERT_EQ(f->metadata().size(), 16u);
  EXPECT_EQ(f->metadata()[0].first, "t.u8");
  EXPECT_EQ(f->get_uint("t.u8"), 200u);
  EXPECT_EQ(f->find("t.i8")->i, -5);
  EXPECT_EQ(f->get_uint("t.u16"), 65535u);
  EXPECT_EQ(f->find("t.i16")->as_int(), -30000);
  EXPECT_EQ(f->get_uint("t.u32"), 4000000000u);
  EXPECT_EQ(f->find("t.i32")->as_int(), -7);
  EXPECT_EQ(f->get_float("t.f32"), 1.5);
  EXPECT_EQ(f->get_bool("t.bool"), true);
  EXPECT_EQ(f->get_string("t.str"), std::string("with\0nul", 8));
  EXPECT_EQ(f->get_uint("t.u64"), ~uint64_t{0});
  EXPECT_EQ(f->find("t.i64")->as_int(), -(int64_t{1} << 40));
  EXPECT_EQ(f->get_float("t.f64"), 0.1);
  ASSERT_EQ(f->get_array("t.strs")->array_size(), 3u);
  EXPECT_EQ(*f->get_array("t.strs")->string_at(2), "ccc");
  EXPECT_EQ(*f->get_array("t.strs")->string_at(1), "");
  EXPECT_EQ(f->find("t.strs")->elem_type, GgufType::kString);
  EXPECT_EQ(f->get_array("t.floats")->float_at(1), -2.0);
  EXPECT_EQ(f->get_array("t.floats")->item(0).type, GgufType::kF32);
  EXPECT_EQ(f->get_array("t.floats")->item(0).f, 0.25);
  const GgufValue& nested = *f->get_array("t.nested");
  ASSERT_EQ(nested.array_size(), 2u);
  ASSERT_NE(nested.array_at(0), nullptr);
  EXPECT_EQ(nested.array_at(0)->int_at(1), 2);
  EXPECT_EQ(nested.array_at(1)->array_size(), 0u);
  EXPECT_EQ(nested.string_at(0), nullptr);
  EXPECT_EQ(f->get_array("t.empty")->array_size(), 0u);
  EXPECT_EQ(f->get_array("t.str"), nullptr);
}

TEST_F(GgufWriterTest, SetReplacesAnExistingKeyInPlace) {
  GgufWriter w;
  w.set("a", GgufValue::U32(1));
  w.set("b", GgufValue::U32(2));
  w.set("a", GgufValue::String("x"));
  ASSERT_TRUE(w.write(path("replace.gguf")).ok());
  auto f = GgufFile::Open(path("replace.gguf"));
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(f->metadata().size(), 2u);
  EXPECT_EQ(f->metadata()[0].first, "a");
  EXPECT_EQ(f->get_string("a"), "x");
}

TEST_F(GgufWriterTest, TensorBytesRoundTripInEveryLayout) {
  struct Case { const char* name; DType type; std::vector<uint64_t> dims; };
  const std::vector<Case> cases = {
      {"f32", DType::kF32, {3, 5}},          {"f16", DType::kF16, {7}},
      {"q8_0", DType::kQ8_0, {64, 2}},       {"q4_k", DType::kQ4_K, {256, 1, 3}},
      {"iq2_xxs", DType::kIQ2_XXS, {512}},   {"bf16", DType::kBF16, {2, 2, 2, 2}},
  };
  for (uint32_t alignment : {32u, 64u, 4096u}) {
    GgufWriter w;
    w.set_alignment(alignment);
    uint8_t seed = 1;
    for (const auto& c : cases) {
      size_t n = 1;
      for (auto d : c.dims) n *= d;
      w.add_tensor_bytes(c.name, c.type, c.dims, pattern(*dtype_row_bytes(c.type, n), seed++));
    }
    std::string p = path("tensors-" + std::to_string(alignment) + ".gguf");
    ASSERT_TRUE(w.write(p).ok());
    auto f = GgufFile::Open(p);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    EXPECT_EQ(f->alignment(), alignment);
    EXPECT_EQ(f->get_uint("general.alignment").has_value(), alignment != 32);
    seed = 1;
    for (const auto& c : cases) {
      const GgufTensor* t = f->find_tensor(c.name);
      ASSERT_NE(t, nullptr) << c.name;
      EXPECT_EQ(t->type, c.type);
      EXPECT_EQ(t->dims, c.dims);
      EXPECT_EQ(t->file_offset % alignment, 0u);
      auto want = pattern(t->n_bytes, seed++);
      EXPECT_EQ(std::memcmp(t->data, want.data(), want.size()), 0) << c.name;
    }
  }
}

TEST_F(GgufWriterTest, FillCallbackWritesStreamedTensors) {
  GgufWriter w;
  int n_calls = 0;
  w.add_tensor("big", DType::kF32, {1024, 3}, [&n_calls](uint8_t* dst) {
    ++n_calls;
    auto* f = reinterpret_cast<float*>(dst);
    for (int i = 0; i < 3072; ++i) f[i] = static_cast<float>(i);
  });
  ASSERT_TRUE(w.write(path("fill.gguf")).ok());
  EXPECT_EQ(n_calls, 1);
  auto f = GgufFile::Open(path("fill.gguf"));
  ASSERT_TRUE(f.ok());
  const float* data = reinterpret_cast<const float*>(f->find_tensor("big")->data);
  EXPECT_EQ(data[0], 0.0f);
  EXPECT_EQ(data[3071], 3071.0f);
}

TEST_F(GgufWriterTest, RejectsRowsThatAreNotWholeBlocks) {
  GgufWriter w;
  w.add_tensor("t", DType::kQ4_K, {128, 2}, [](uint8_t*) {});
  Status st = w.write(path("bad.gguf"));
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_NE(st.message().find("'t'"), std::string::npos) << st.message();
  EXPECT_FALSE(fs::exists(path("bad.gguf")));
  EXPECT_FALSE(fs::exists(path("bad.gguf.tmp")));
}

TEST_F(GgufWriterTest, RejectsDuplicateTensorNames) {
  GgufWriter w;
  w.add_tensor_bytes("t", DType::kF32, {1}, pattern(4, 0));
  w.add_tensor_bytes("t", DType::kF32, {1}, pattern(4, 0));
  EXPECT_NE(w.write(path("dup.gguf")).message().find("duplicate tensor name 't'"), std::string::npos);
}

TEST_F(GgufWriterTest, RejectsBytesOfTheWrongSize) {
  GgufWriter w;
  w.add_tensor_bytes("t", DType::kF32, {4}, pattern(15, 0));
  EXPECT_EQ(w.write(path("size.gguf")).code(), Code::kInvalidArgument);
}

TEST_F(GgufWriterTest, RejectsAlignmentThatIsNotAPowerOfTwo) {
  GgufWriter w;
  w.set_alignment(48);
  EXPECT_EQ(w.write(path("align.gguf")).code(), Code::kInvalidArgument);
}

// Arrays keep their items by kind (numbers widened as scalars are): every element type reads
// back with its type and value, and the conversions agree with the item's own.
TEST_F(GgufWriterTest, ArraysOfEveryScalarTypeRoundTrip) {
  struct Case {
    GgufType type;
    std::vector<double> values;
  };
  const std::vector<Case> cases = {
      {GgufType::kU8, {0, 255}},        {GgufType::kI8, {-128, 127}},       {GgufType::kU16, {65535, 1}},
      {GgufType::kI16, {-32768, 5}},    {GgufType::kU32, {4e9, 0}},         {GgufType::kI32, {-2e9, 7}},
      {GgufType::kU64, {1e15, 3}},      {GgufType::kI64, {-1e15, 2}},       {GgufType::kF32, {0.5, -1.25}},
      {GgufType::kF64, {0.1, -1e300}},  {GgufType::kBool, {1, 0}},
  };
  GgufWriter w;
  for (const Case& c : cases) {
    std::vector<GgufValue> items;
    for (double v : c.values) {
      GgufValue item;
      item.type = c.type;
      item.u = static_cast<uint64_t>(v < 0 ? 0 : v);
      item.i = static_cast<int64_t>(v);
      item.f = v;
      items.push_back(item);
    }
    w.set(std::string("a.") + gguf_type_name(c.type), GgufValue::Array(c.type, items));
  }
  ASSERT_TRUE(w.write(path("arrays.gguf")).ok());
  auto f = GgufFile::Open(path("arrays.gguf"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  for (const Case& c : cases) {
    const GgufValue* a = f->get_array(std::string("a.") + gguf_type_name(c.type));
    ASSERT_NE(a, nullptr) << gguf_type_name(c.type);
    EXPECT_EQ(a->elem_type, c.type);
    ASSERT_EQ(a->array_size(), c.values.size());
    for (size_t k = 0; k < c.values.size(); ++k) {
      const GgufValue item = a->item(k);
      EXPECT_EQ(item.type, c.type);
      EXPECT_EQ(a->uint_at(k), item.as_uint()) << gguf_type_name(c.type) << k;
      EXPECT_EQ(a->int_at(k), item.as_int()) << gguf_type_name(c.type) << k;
      EXPECT_EQ(a->float_at(k), item.as_float()) << gguf_type_name(c.type) << k;
      const double want = c.type == GgufType::kF32 ? static_cast<float>(c.values[k]) : c.values[k];
      EXPECT_EQ(c.type == GgufType::kBool ? static_cast<double>(*item.as_bool()) : *item.as_float(), want)
          << gguf_type_name(c.type) << k;
    }
  }
}

TEST_F(GgufWriterTest, RejectsArrayItemsOfTheWrongType) {
  GgufWriter w;
  w.set("mixed", GgufValue::Array(GgufType::kU32, {GgufValue::U32(1), GgufValue::String("x")}));
  EXPECT_NE(w.write(path("mixed.gguf")).message().find("'mixed'"), std::string::npos);
}

TEST_F(GgufWriterTest, UnwritableDirectoryIsAnIoError) {
  GgufWriter w;
  Status st = w.write(path("no/such/dir/x.gguf"));
  EXPECT_EQ(st.code(), Code::kIoError);
  EXPECT_NE(st.message().find("x.gguf.tmp"), std::string::npos) << st.message();
}

// Rewriting a real model's metadata and tensors gives identical tensor bytes.
TEST_F(GgufWriterTest, RealModelRoundTrips) {
  auto src = GgufFile::Open(std::string(STRATA_SHARED_DIR) + "/models/stories260K-q4_k_m-fallback.gguf");
  ASSERT_TRUE(src.ok());
  GgufWriter w;
  for (const auto& [k, v] : src->metadata()) w.set(k, v);
  for (const auto& t : src->tensors()) {
    w.add_tensor_bytes(t.name, t.type, t.dims, std::vector<uint8_t>(t.data, t.data + t.n_bytes));
  }
  ASSERT_TRUE(w.write(path("copy.gguf")).ok());
  auto copy = GgufFile::Open(path("copy.gguf"));
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  ASSERT_EQ(copy->metadata().size(), src->metadata().size());
  EXPECT_EQ(copy->get_array("tokenizer.ggml.tokens")->array_size(), 512u);
  ASSERT_EQ(copy->tensors().size(), src->tensors().size());
  for (const auto& t : src->tensors()) {
    const GgufTensor* c = copy->find_tensor(t.name);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->type, t.type);
    ASSERT_EQ(c->n_bytes, t.n_bytes);
    EXPECT_EQ(std::memcmp(c->data, t.data, t.n_bytes), 0) << t.name;
  }
}

}  // namespace
}  // namespace strata
