// Hand-made malformed GGUF images: each defect gives a clear error naming the file, the
// byte offset and what is wrong, and nothing reads out of bounds (run under ASan by the fuzz
// build; here every truncation and byte flip of a valid image is also tried).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"

namespace strata {
namespace {

// Builds GGUF images byte by byte so each field can be made wrong on purpose.
struct Image {
  std::vector<uint8_t> bytes;
  template <typename T>
  Image& pod(T v) {
    uint8_t b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    bytes.insert(bytes.end(), b, b + sizeof(T));
    return *this;
  }
  Image& str(const std::string& s) {
    pod<uint64_t>(s.size());
    bytes.insert(bytes.end(), s.begin(), s.end());
    return *this;
  }
  Image& header(uint64_t n_tensors, uint64_t n_kv, uint32_t version = 3) {
    return pod<uint32_t>(0x46554747).pod(version).pod(n_tensors).pod(n_kv);
  }
  Image& kv_u32(const std::string& key, uint32_t v) { return str(key).pod<uint32_t>(4).pod(v); }
  Image& tensor_info(const std::string& name, std::vector<uint64_t> dims, uint32_t type, uint64_t offset) {
    str(name).pod<uint32_t>(static_cast<uint32_t>(dims.size()));
    for (uint64_t d : dims) pod(d);
    return pod(type).pod(offset);
  }
  Image& pad_to(size_t alignment) {
    while (bytes.size() % alignment != 0) bytes.push_back(0);
    return *this;
  }
  Image& data(size_t n_bytes) {
    bytes.resize(bytes.size() + n_bytes, 0x11);
    return *this;
  }
  size_t size() const { return bytes.size(); }
};

Status parse(const Image& img) {
  auto f = GgufFile::Parse(img.bytes.data(), img.bytes.size(), "bad.gguf");
  return f.ok() ? Status::Ok() : f.status();
}

// The message names the file, the offset and contains what.
void expect_error(const Image& img, size_t offset, const std::string& what, Code code = Code::kCorrupt) {
  Status st = parse(img);
  ASSERT_FALSE(st.ok()) << "expected: " << what;
  EXPECT_EQ(st.code(), code) << st.ToString();
  std::string prefix = "bad.gguf: offset " + std::to_string(offset) + ": ";
  EXPECT_EQ(st.message().rfind(prefix, 0), 0u) << st.message();
  EXPECT_NE(st.message().find(what), std::string::npos) << st.message();
}

// A valid image: two keys, one 4x2 f32 tensor and one 32-element q8_0 tensor.
Image valid_image() {
  Image img;
  img.header(2, 2).kv_u32("a.count", 7);
  img.str("a.names").pod<uint32_t>(9).pod<uint32_t>(8).pod<uint64_t>(2).str("x").str("yz");
  img.tensor_info("w", {4, 2}, 0, 0).tensor_info("q", {32}, 8, 32);
  img.pad_to(32).data(32).data(34);
  return img;
}

TEST(GgufMalformedTest, ValidImageParses) {
  Image img = valid_image();
  auto f = GgufFile::Parse(img.bytes.data(), img.size(), "ok.gguf");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->get_uint("a.count"), 7u);
  ASSERT_EQ(f->tensors().size(), 2u);
  EXPECT_EQ(f->find_tensor("q")->type, DType::kQ8_0);
  EXPECT_EQ(f->find_tensor("q")->n_bytes, 34u);
  EXPECT_EQ(f->find_tensor("q")->data, img.bytes.data() + img.size() - 34);
}

TEST(GgufMalformedTest, BadMagic) {
  Image img = valid_image();
  img.bytes[0] = 'X';
  expect_error(img, 0, "bad magic");
}

TEST(GgufMalformedTest, UnsupportedVersions) {
  Image v1;
  v1.header(0, 0, 1);
  expect_error(v1, 4, "unsupported GGUF version 1", Code::kUnsupported);
  Image v4;
  v4.header(0, 0, 4);
  expect_error(v4, 4, "unsupported GGUF version 4", Code::kUnsupported);
  Image big_endian;
  big_endian.header(0, 0, 0x03000000);
  expect_error(big_endian, 4, "big-endian", Code::kUnsupported);
}

TEST(GgufMalformedTest, TruncatedHeader) {
  Image img;
  img.pod<uint32_t>(0x46554747).pod<uint32_t>(3).pod<uint32_t>(1);
  expect_error(img, 8, "truncated: need 8 bytes for tensor count, 4 left");
}

TEST(GgufMalformedTest, TensorCountLargerThanTheFileCanHold) {
  Image img;
  img.header(uint64_t{1} << 62, 0);
  expect_error(img, 8, "tensor count 4611686018427387904");
}

TEST(GgufMalformedTest, MetadataCountLargerThanTheFileCanHold) {
  Image img;
  img.header(0, uint64_t{1} << 60).kv_u32("k", 1);
  expect_error(img, 16, "metadata count 1152921504606846976");
}

TEST(GgufMalformedTest, AbsurdStringLength) {
  Image img;
  img.header(0, 1).pod<uint64_t>(uint64_t{1} << 60).data(8);
  expect_error(img, 24, "string length 1152921504606846976 exceeds");
}

TEST(GgufMalformedTest, HugeArrayCountFailsBeforeAllocating) {
  Image img;
  img.header(0, 1).str("arr").pod<uint32_t>(9).pod<uint32_t>(0).pod<uint64_t>(uint64_t{1} << 60).data(16);
  size_t array_at = 24 + 8 + 3 + 4;
  expect_error(img, array_at + 4, "array count 1152921504606846976 of u8");
}

TEST(GgufMalformedTest, UnknownValueType) {
  Image img;
  img.header(0, 1).str("k").pod<uint32_t>(13).pod<uint32_t>(0);
  expect_error(img, 24 + 8 + 1, "unknown value type id 13 of key 'k'");
}

TEST(GgufMalformedTest, UnknownArrayElementType) {
  Image img;
  img.header(0, 1).str("k").pod<uint32_t>(9).pod<uint32_t>(99).pod<uint64_t>(0);
  expect_error(img, 24 + 8 + 1 + 4, "unknown value type id 99");
}

TEST(GgufMalformedTest, ArraysNestedTooDeep) {
  Image img;
  img.header(0, 1).str("k").pod<uint32_t>(9);
  for (int depth = 0; depth < 20; ++depth) img.pod<uint32_t>(9).pod<uint64_t>(1);
  img.pod<uint32_t>(0).pod<uint64_t>(0);
  Status st = parse(img);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Code::kUnsupported);
  EXPECT_NE(st.message().find("nested more than 8 deep"), std::string::npos) << st.message();
}

TEST(GgufMalformedTest, NestedArraysWithinTheLimitParse) {
  Image img;
  img.header(0, 1).str("k").pod<uint32_t>(9).pod<uint32_t>(9).pod<uint64_t>(2);
  img.pod<uint32_t>(5).pod<uint64_t>(1).pod<int32_t>(-3);
  img.pod<uint32_t>(8).pod<uint64_t>(1).str("s");
  auto f = GgufFile::Parse(img.bytes.data(), img.size(), "nested.gguf");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const auto* outer = f->get_array("k");
  ASSERT_NE(outer, nullptr);
  ASSERT_EQ(outer->array_size(), 2u);
  EXPECT_EQ(outer->array_at(0)->int_at(0), -3);
  EXPECT_EQ(*outer->array_at(1)->string_at(0), "s");
}

TEST(GgufMalformedTest, DuplicateKey) {
  Image img;
  img.header(0, 2).kv_u32("dup", 1).kv_u32("dup", 2);
  expect_error(img, 24 + 8 + 3 + 4 + 4, "duplicate metadata key 'dup'");
}

TEST(GgufMalformedTest, DuplicateTensorName) {
  Image img;
  img.header(2, 0).tensor_info("t", {4}, 0, 0).tensor_info("t", {4}, 0, 32).pad_to(32).data(64);
  expect_error(img, 24 + 8 + 1 + 4 + 8 + 4 + 8, "duplicate tensor name 't'");
}

TEST(GgufMalformedTest, TooManyDims) {
  Image img;
  img.header(1, 0).tensor_info("t", {1, 1, 1, 1, 1}, 0, 0).pad_to(32).data(32);
  expect_error(img, 24, "n_dims 5 > 4");
}

TEST(GgufMalformedTest, ElementCountOverflow) {
  Image img;
  img.header(1, 0).tensor_info("t", {uint64_t{1} << 32, uint64_t{1} << 32}, 0, 0);
  expect_error(img, 24, "integer overflow");
}

TEST(GgufMalformedTest, UnknownTensorType) {
  Image img;
  img.header(1, 0).tensor_info("t", {4}, 4, 0).pad_to(32).data(32);  // 4 was Q4_2, long retired
  expect_error(img, 24, "unknown type id 4");
}

TEST(GgufMalformedTest, RowNotWholeBlocks) {
  Image img;
  img.header(1, 0).tensor_info("t", {48}, 12, 0).pad_to(32).data(256);
  expect_error(img, 24, "not whole q4_K blocks of 256");
}

TEST(GgufMalformedTest, TensorOffsetOutOfRange) {
  Image img;
  img.header(1, 0).tensor_info("t", {8}, 0, 1u << 20).pad_to(32).data(32);
  expect_error(img, 24, "out of range");
}

TEST(GgufMalformedTest, TensorOffsetNearUint64MaxDoesNotWrap) {
  Image img;
  img.header(1, 0).tensor_info("t", {8}, 0, ~uint64_t{0} - 31).pad_to(32).data(32);
  expect_error(img, 24, "out of range");
}

TEST(GgufMalformedTest, TruncatedTensorData) {
  Image img = valid_image();
  img.bytes.resize(img.size() - 1);
  Status st = parse(img);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("tensor 'q' data [32, +34) is out of range"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("truncated"), std::string::npos);
}

TEST(GgufMalformedTest, MisalignedTensorOffset) {
  Image img;
  img.header(1, 0).tensor_info("t", {4}, 0, 4).pad_to(32).data(64);
  expect_error(img, 24, "not a multiple of the alignment 32");
}

TEST(GgufMalformedTest, AlignmentMustBeAPowerOfTwo) {
  Image img;
  img.header(0, 1).kv_u32("general.alignment", 48);
  expect_error(img, 24, "general.alignment must be a u32 power of two");
}

TEST(GgufMalformedTest, CustomAlignmentMovesTheDataSection) {
  Image img;
  img.header(1, 1).kv_u32("general.alignment", 256).tensor_info("t", {4}, 0, 0).pad_to(256).data(16);
  auto f = GgufFile::Parse(img.bytes.data(), img.size(), "a.gguf");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->alignment(), 256u);
  EXPECT_EQ(f->find_tensor("t")->file_offset, 256u);
}

// Every prefix of a valid image is rejected with an error naming the file: no crash, no
// out-of-bounds read (ASan in the fuzz build catches the latter).
TEST(GgufMalformedTest, EveryTruncationFailsCleanly) {
  Image img = valid_image();
  for (size_t n = 0; n < img.size(); ++n) {
    auto f = GgufFile::Parse(img.bytes.data(), n, "cut.gguf");
    ASSERT_FALSE(f.ok()) << "prefix of " << n << " bytes parsed";
    EXPECT_EQ(f.status().message().rfind("cut.gguf: offset ", 0), 0u) << f.status().message();
  }
}

// Flipping any one byte of the header and tables either still parses or names the defect.
TEST(GgufMalformedTest, EveryByteFlipParsesOrFailsCleanly) {
  const Image base = valid_image();
  size_t n_table_bytes = base.size() - 66;
  for (size_t i = 0; i < n_table_bytes; ++i) {
    for (uint8_t flip : {0x01, 0x80, 0xff}) {
      Image img = base;
      img.bytes[i] ^= flip;
      auto f = GgufFile::Parse(img.bytes.data(), img.size(), "flip.gguf");
      if (!f.ok()) {
        EXPECT_EQ(f.status().message().rfind("flip.gguf: offset ", 0), 0u) << f.status().message();
      }
    }
  }
}

}  // namespace
}  // namespace strata
