// `strata gguf-info`, `strata mkmodel` and `strata quantize` run in-process: options, output, exit codes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace strata::cli {
namespace {

namespace fs = std::filesystem;

struct CommandRun {
  int exit_code = -1;
  std::string out, err;
};

CommandRun run_command(std::vector<std::string> args) {
  CLI::App app;
  app.require_subcommand(1);
  CommandRun r;
  add_gguf_info_command(app, &r.exit_code);
  add_mkmodel_command(app, &r.exit_code);
  add_quantize_command(app, &r.exit_code);
  std::vector<const char*> argv = {"strata"};
  for (const auto& a : args) argv.push_back(a.c_str());
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    r.exit_code = 100 + e.get_exit_code();
  }
  r.out = testing::internal::GetCapturedStdout();
  r.err = testing::internal::GetCapturedStderr();
  return r;
}

class GgufCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-cli-gguf-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(GgufCommandsTest, MkmodelThenGgufInfoReportTheFallbacks) {
  std::string path = (dir_ / "tiny.gguf").string();
  CommandRun mk = run_command({"mkmodel", "--preset", "tiny", "--type", "q4_k", "--seed", "5", "-o", path});
  ASSERT_EQ(mk.exit_code, 0) << mk.err;
  EXPECT_NE(mk.out.find("wrote " + path), std::string::npos) << mk.out;
  EXPECT_NE(mk.out.find("fallback: blk.0.attn_q.weight stored as q5_0"), std::string::npos) << mk.out;
  EXPECT_NE(mk.out.find("weights are random"), std::string::npos);

  CommandRun info = run_command({"gguf-info", path});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("file type Q4_K_M"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("blk.1.ffn_up.weight"), std::string::npos);
  EXPECT_NE(info.out.find("fallback: width 64 is not whole q4_K blocks of 256"), std::string::npos);
  EXPECT_NE(info.out.find("... (259 items)]"), std::string::npos);
}

TEST_F(GgufCommandsTest, GgufInfoOptionsShortenTheReport) {
  std::string model = std::string(STRATA_SHARED_DIR) + "/models/stories260K.gguf";
  CommandRun info = run_command({"gguf-info", "--no-tensors", "--max-items", "2", model});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("[\"<unk>\", \"<s>\", ... (512 items)]"), std::string::npos) << info.out;
  EXPECT_EQ(info.out.find("blk.0.attn_q.weight"), std::string::npos);
  EXPECT_NE(info.out.find("totals: 48 tensors"), std::string::npos);
}

// A file quantised by llama.cpp: its file type, its mix of matrix types, and the type names.
TEST_F(GgufCommandsTest, GgufInfoShowsTheQuantisationMix) {
  std::string model = std::string(STRATA_SHARED_DIR) + "/quants/qref-IQ2_XXS.gguf";
  CommandRun info = run_command({"gguf-info", model});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("file type IQ2_XXS (general.file_type 19)"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("mix IQ2_XXS: 14 x iq2_xxs, 2 x q8_0 (+ 5 vectors)"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("  iq2_xxs     14 tensors"), std::string::npos) << info.out;
}

TEST_F(GgufCommandsTest, GgufInfoNamesTheProblemInABadFile) {
  std::string model = std::string(STRATA_SHARED_DIR) + "/vocab/ggml-vocab-gpt-2.gguf.inp";
  CommandRun info = run_command({"gguf-info", model});
  EXPECT_EQ(info.exit_code, 1);
  EXPECT_NE(info.err.find("offset 0: bad magic"), std::string::npos) << info.err;
}

// Q8_K is a GGUF type (llama.cpp's activation blocks) that no model file stores its matrices in.
TEST_F(GgufCommandsTest, MkmodelRejectsTypesItCannotWrite) {
  CommandRun mk = run_command({"mkmodel", "--type", "q8_k", "-o", (dir_ / "x.gguf").string()});
  EXPECT_EQ(mk.exit_code, 2);
  EXPECT_NE(mk.err.find("unsupported --type q8_k"), std::string::npos) << mk.err;
  EXPECT_FALSE(fs::exists(dir_ / "x.gguf"));
}

TEST_F(GgufCommandsTest, MkmodelDryRunWritesNothing) {
  CommandRun mk = run_command({"mkmodel", "--preset", "1b", "--type", "q8_0", "--dry-run", "-o", (dir_ / "b.gguf").string()});
  ASSERT_EQ(mk.exit_code, 0) << mk.err;
  EXPECT_NE(mk.out.find("1100048384 parameters"), std::string::npos) << mk.out;
  EXPECT_FALSE(fs::exists(dir_ / "b.gguf"));
}

// --arch glm4moe on another MoE preset, --layers 1: the summary names the dense layer and the
// NextN block, which the file holds after the layer; a dense preset is refused.
TEST_F(GgufCommandsTest, MkmodelWritesGlm4MoeWithItsNextNBlock) {
  const std::string path = (dir_ / "glm.gguf").string();
  CommandRun mk = run_command({"mkmodel", "--arch", "glm4moe", "--preset", "moe-tiny", "--layers", "1", "--type",
                               "q8_0", "--threads", "1", "-o", path});
  ASSERT_EQ(mk.exit_code, 0) << mk.err;
  EXPECT_NE(mk.out.find("wrote " + path + ": glm4moe preset moe-tiny, 1 layers"), std::string::npos) << mk.out;
  EXPECT_NE(mk.out.find("a shared expert of width 256"), std::string::npos) << mk.out;
  EXPECT_NE(mk.out.find("1 leading dense layer(s) of width 256"), std::string::npos) << mk.out;
  EXPECT_NE(mk.out.find("1 NextN block(s) after the 1 layers (written, not run)"), std::string::npos) << mk.out;
  CommandRun info = run_command({"gguf-info", path});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("glm4moe.block_count"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("blk.1.nextn.eh_proj.weight"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("blk.1.exp_probs_b.bias"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("blk.0.ffn_down.weight"), std::string::npos) << info.out;

  CommandRun dense = run_command({"mkmodel", "--arch", "glm4moe", "--preset", "tiny", "-o", (dir_ / "d.gguf").string()});
  EXPECT_EQ(dense.exit_code, 1);
  EXPECT_NE(dense.err.find("--arch glm4moe needs one of: moe-tiny"), std::string::npos) << dense.err;
}

TEST_F(GgufCommandsTest, MkmodelDryRunOfGlm45Air) {
  CommandRun mk = run_command({"mkmodel", "--preset", "glm-4.5-air", "--type", "q4_k", "--dry-run", "-o",
                               (dir_ / "air.gguf").string()});
  ASSERT_EQ(mk.exit_code, 0) << mk.err;
  EXPECT_NE(mk.out.find("glm4moe preset glm-4.5-air, 46 layers, 4096 wide, 96/8 heads of 128, ffn 10944, vocab 151552"),
            std::string::npos)
      << mk.out;
  EXPECT_NE(mk.out.find("experts: 128 of width 1408, 8 used per token, a shared expert of width 1408"),
            std::string::npos)
      << mk.out;
  EXPECT_NE(mk.out.find("fallback: blk.1.ffn_down_exps.weight stored as q8_0"), std::string::npos) << mk.out;
  EXPECT_FALSE(fs::exists(dir_ / "air.gguf"));
}

TEST_F(GgufCommandsTest, QuantizeWritesTheMixAndSaysWhatFellBack) {
  const std::string in = std::string(STRATA_SHARED_DIR) + "/models/stories260K.gguf";
  const std::string out = (dir_ / "q3.gguf").string();
  CommandRun q = run_command({"quantize", "--no-progress", "--threads", "1", in, out, "q3_k_m"});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_NE(q.out.find("wrote " + out + ": Q3_K_M"), std::string::npos) << q.out;
  EXPECT_NE(q.out.find("37 of 48 tensors re-encoded"), std::string::npos) << q.out;
  EXPECT_NE(q.out.find("fallback: blk.0.attn_q.weight stored as iq4_nl (width 64 is not whole q3_K blocks of 256)"),
            std::string::npos)
      << q.out;
  CommandRun info = run_command({"gguf-info", "--no-tensors", out});
  EXPECT_NE(info.out.find("file type Q3_K_M"), std::string::npos) << info.out;
}

TEST_F(GgufCommandsTest, QuantizeNamesBadInputAndFails) {
  const std::string in = std::string(STRATA_SHARED_DIR) + "/models/stories260K.gguf";
  CommandRun bad = run_command({"quantize", in, (dir_ / "x.gguf").string(), "q9_k"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("quantize: "), std::string::npos);
  EXPECT_NE(bad.err.find("unknown type 'q9_k'"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir_ / "x.gguf"));
}

}  // namespace
}  // namespace strata::cli
