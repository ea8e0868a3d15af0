// Split models (NAME-00001-of-0000N.gguf) open as one file; file-name parsing.
#include "gguf/gguf_split.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

TEST(GgufSplitNameTest, ParsesAndFormatsPartNames) {
  auto s = parse_split_path("/m/qwen-00002-of-00003.gguf");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->prefix, "/m/qwen");
  EXPECT_EQ(s->part_no, 2);
  EXPECT_EQ(s->n_parts, 3);
  EXPECT_EQ(split_path("/m/qwen", 1, 3), "/m/qwen-00001-of-00003.gguf");
}

TEST(GgufSplitNameTest, RejectsOtherNames) {
  EXPECT_FALSE(parse_split_path("model.gguf").has_value());
  EXPECT_FALSE(parse_split_path("m-00004-of-00003.gguf").has_value());
  EXPECT_FALSE(parse_split_path("m-00000-of-00003.gguf").has_value());
  EXPECT_FALSE(parse_split_path("m-0001-of-00003.gguf").has_value());
  EXPECT_FALSE(parse_split_path("m-00001-of-00003.bin").has_value());
}

class GgufSplitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-gguf-split-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes a 3-part model: part k holds tensor "t<k>" filled with byte k+1.
  void write_parts(uint32_t declared_tensors) {
    for (int k = 0; k < 3; ++k) {
      GgufWriter w;
      if (k == 0) w.set("general.architecture", GgufValue::String("llama"));
      GgufValue no;
      no.type = GgufType::kU16;
      no.u = static_cast<uint64_t>(k);
      GgufValue count = no;
      count.u = 3;
      w.set("split.no", no);
      w.set("split.count", count);
      w.set("split.tensors.count", GgufValue::I32(static_cast<int32_t>(declared_tensors)));
      w.add_tensor_bytes("t" + std::to_string(k), DType::kF32, {8},
                         std::vector<uint8_t>(32, static_cast<uint8_t>(k + 1)));
      ASSERT_TRUE(w.write(split_path((dir_ / "m").string(), k + 1, 3)).ok());
    }
  }

  fs::path dir_;
};

TEST_F(GgufSplitTest, OpensAllPartsAsOneModel) {
  write_parts(3);
  auto f = GgufFile::Open(split_path((dir_ / "m").string(), 1, 3));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->n_parts(), 3);
  EXPECT_EQ(f->get_string("general.architecture"), "llama");
  ASSERT_EQ(f->tensors().size(), 3u);
  for (int k = 0; k < 3; ++k) {
    const GgufTensor* t = f->find_tensor("t" + std::to_string(k));
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->part, k);
    EXPECT_EQ(t->data[0], k + 1);
    EXPECT_EQ(t->data[31], k + 1);
  }
}

TEST_F(GgufSplitTest, MissingPartIsNotFound) {
  write_parts(3);
  fs::remove(split_path((dir_ / "m").string(), 3, 3));
  auto f = GgufFile::Open(split_path((dir_ / "m").string(), 1, 3));
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), Code::kNotFound);
  EXPECT_NE(f.status().message().find("m-00003-of-00003.gguf"), std::string::npos);
}

TEST_F(GgufSplitTest, WrongDeclaredTensorCountIsCorrupt) {
  write_parts(4);
  auto f = GgufFile::Open(split_path((dir_ / "m").string(), 1, 3));
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("split.tensors.count says 4"), std::string::npos) << f.status().message();
}

TEST_F(GgufSplitTest, OpeningALaterPartAsksForTheFirst) {
  write_parts(3);
  auto f = GgufFile::Open(split_path((dir_ / "m").string(), 2, 3));
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("open the first part"), std::string::npos) << f.status().message();
}

}  // namespace
}  // namespace strata
