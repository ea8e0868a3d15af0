// The quantisation mix line of gguf-info: matrices counted per type, labelled with the
// file's llama.cpp file type, on files written by llama.cpp's quantizer.
#include "gguf/quant_mix.h"

#include <gtest/gtest.h>

#include <cctype>

#include "gguf/gguf_describe.h"

namespace strata {
namespace {

const std::string kQuants = std::string(STRATA_SHARED_DIR) + "/quants/";

std::string mix_of(const std::string& path) {
  auto f = GgufFile::Open(path);
  EXPECT_TRUE(f.ok()) << f.status().message();
  return f.ok() ? format_quant_mix(quant_mix(*f)) : "";
}

TEST(QuantMixTest, CountsMatricesPerTypeUnderTheFileTypeName) {
  EXPECT_EQ(mix_of(kQuants + "qref-Q2_K.gguf"), "Q2_K: 16 x q2_K (+ 5 vectors)");
  EXPECT_EQ(mix_of(kQuants + "qref-Q3_K_S.gguf"), "Q3_K_S: 16 x q3_K (+ 5 vectors)");
}

TEST(QuantMixTest, MostCommonTypeComesFirst) {
  EXPECT_EQ(mix_of(kQuants + "qref-IQ2_XXS.gguf"), "IQ2_XXS: 14 x iq2_xxs, 2 x q8_0 (+ 5 vectors)");
  // llama.cpp's IQ2_M file type writes IQ2_S tensors.
  EXPECT_EQ(mix_of(kQuants + "qref-IQ2_S.gguf"), "IQ2_M: 14 x iq2_s, 2 x q8_0 (+ 5 vectors)");
}

TEST(QuantMixTest, EveryQuantTypeIsNamed) {
  for (const char* type : {"Q4_1", "Q5_1", "IQ4_NL", "IQ4_XS", "IQ3_S", "IQ3_XXS", "IQ2_XS", "IQ1_S", "IQ1_M"}) {
    const std::string mix = mix_of(kQuants + "qref-" + type + ".gguf");
    std::string lower = type;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_NE(mix.find(" x " + lower), std::string::npos) << mix;
  }
}

TEST(QuantMixTest, WithoutAFileTypeTheMainMatrixTypeNamesTheMix) {
  QuantMix mix;
  mix.matrices = {{DType::kQ4_K, 128}, {DType::kQ6_K, 2}};
  mix.label = "Q4_K-like";
  EXPECT_EQ(format_quant_mix(mix), "Q4_K-like: 128 x q4_K, 2 x q6_K");
}

TEST(QuantMixTest, GgufInfoReportShowsTheMix) {
  auto f = GgufFile::Open(kQuants + "qref-Q5_1.gguf");
  ASSERT_TRUE(f.ok());
  const std::string text = describe_gguf(*f, DescribeOptions{});
  EXPECT_NE(text.find("  mix Q5_1: 16 x q5_1 (+ 5 vectors)\n"), std::string::npos) << text.substr(0, 400);
}

}  // namespace
}  // namespace strata
