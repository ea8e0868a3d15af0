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

// --arch deepseek2 on moe-tiny: DeepSeek-V3's latent attention with a query bottleneck, a dense
// layer and an MoE layer; --split-kv-b writes attn_k_b / attn_v_b instead of attn_kv_b; other
// archs refuse the flag.
TEST_F(GgufCommandsTest, MkmodelWritesDeepseek2InBothForms) {
  const std::string path = (dir_ / "ds.gguf").string();
  CommandRun mk = run_command({"mkmodel", "--arch", "deepseek2", "--preset", "moe-tiny", "--type", "q8_0",
                               "--threads", "1", "-o", path});
  ASSERT_EQ(mk.exit_code, 0) << mk.err;
  EXPECT_NE(mk.out.find("wrote " + path + ": deepseek2 preset moe-tiny, 2 layers, 128 wide, 4/4 heads of 192"),
            std::string::npos)
      << mk.out;
  EXPECT_NE(mk.out.find("deepseek2 MLA: queries through rank 512 (attn_q_a, attn_q_b), keys and values from a "
                        "512-wide latent plus a 64-wide rope key (attn_kv_a_mqa), key heads of 128 + 64 rope, value "
                        "heads of 128, expanded by attn_kv_b"),
            std::string::npos)
      << mk.out;
  EXPECT_NE(mk.out.find("deepseek2 routing: 1 leading dense layer(s) of width 256, sigmoid with a selection bias "
                        "(exp_probs_b), weights normalised, scaled by 2.5; YaRN 40 (log multiplier 0.1)"),
            std::string::npos)
      << mk.out;
  EXPECT_EQ(mk.out.find("warning"), std::string::npos) << mk.out;
  CommandRun info = run_command({"gguf-info", path});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  for (const char* shown : {"deepseek2.attention.q_lora_rank", "deepseek2.rope.scaling.yarn_log_multiplier",
                            "blk.0.attn_q_a.weight", "blk.1.attn_kv_b.weight", "blk.1.exp_probs_b.bias",
                            "blk.0.ffn_down.weight", "blk.1.ffn_down_shexp.weight"}) {
    EXPECT_NE(info.out.find(shown), std::string::npos) << shown << "\n" << info.out;
  }

  const std::string split = (dir_ / "ds-split.gguf").string();
  mk = run_command({"mkmodel", "--arch", "deepseek2", "--preset", "moe-tiny", "--split-kv-b", "--layers", "1",
                    "--type", "q4_k", "--threads", "1", "-o", split});
  ASSERT_EQ(mk.exit_code, 0) << mk.err;
  EXPECT_NE(mk.out.find("expanded by attn_k_b and attn_v_b (head_count_kv 1"), std::string::npos) << mk.out;
  EXPECT_NE(mk.out.find("0 leading dense layer(s)"), std::string::npos) << mk.out;
  EXPECT_NE(mk.out.find("fallback: blk.0.attn_k_b.weight stored as q5_0"), std::string::npos) << mk.out;
  info = run_command({"gguf-info", split});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  for (const char* shown : {"deepseek2.attention.key_length_mla", "blk.0.attn_k_b.weight", "blk.0.attn_v_b.weight",
                            "blk.0.ffn_up_exps.weight"}) {
    EXPECT_NE(info.out.find(shown), std::string::npos) << shown << "\n" << info.out;
  }
  EXPECT_EQ(info.out.find("attn_kv_b"), std::string::npos) << info.out;

  CommandRun refused =
      run_command({"mkmodel", "--preset", "moe-tiny", "--split-kv-b", "-o", (dir_ / "q.gguf").string()});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("is for deepseek2 models, not qwen3moe"), std::string::npos) << refused.err;
}

// The real shapes' summaries, and the warnings for cuts the peers would read as the other form.
TEST_F(GgufCommandsTest, MkmodelDryRunsOfDeepseekPresets) {
  CommandRun v3 = run_command({"mkmodel", "--preset", "deepseek-v3", "--type", "q4_k", "--dry-run", "-o",
                               (dir_ / "v3.gguf").string()});
  ASSERT_EQ(v3.exit_code, 0) << v3.err;
  EXPECT_NE(v3.out.find("deepseek2 preset deepseek-v3, 61 layers, 7168 wide, 128/128 heads of 192, ffn 18432, vocab "
                        "129280"),
            std::string::npos)
      << v3.out;
  EXPECT_NE(v3.out.find("experts: 256 of width 2048, 8 used per token, a shared expert of width 2048"),
            std::string::npos)
      << v3.out;
  EXPECT_NE(v3.out.find("queries through rank 1536"), std::string::npos) << v3.out;
  EXPECT_NE(v3.out.find("3 leading dense layer(s) of width 18432"), std::string::npos) << v3.out;
  EXPECT_FALSE(fs::exists(dir_ / "v3.gguf"));

  CommandRun lite = run_command({"mkmodel", "--preset", "deepseek-v2-lite", "--dry-run", "-o",
                                 (dir_ / "lite.gguf").string()});
  ASSERT_EQ(lite.exit_code, 0) << lite.err;
  EXPECT_NE(lite.out.find("queries without a bottleneck (attn_q)"), std::string::npos) << lite.out;
  EXPECT_NE(lite.out.find("softmax, weights not normalised, scaled by 1; YaRN 40 (log multiplier 0.0707)"),
            std::string::npos)
      << lite.out;
  EXPECT_NE(lite.out.find("experts: 64 of width 1408, 6 used per token, 2 shared experts of width 1408"),
            std::string::npos)
      << lite.out;
  EXPECT_EQ(lite.out.find("warning"), std::string::npos) << lite.out;

  CommandRun cut = run_command({"mkmodel", "--preset", "deepseek-v2-lite", "--layers", "4", "--dry-run", "-o",
                                (dir_ / "cut.gguf").string()});
  ASSERT_EQ(cut.exit_code, 0) << cut.err;
  EXPECT_NE(cut.out.find("warning: llama.cpp and ik_llama.cpp would read 4 layers as a query bottleneck (attn_q_a), "
                         "so would not load this file"),
            std::string::npos)
      << cut.out;
  CommandRun v3_26 = run_command({"mkmodel", "--preset", "deepseek-v3", "--layers", "26", "--dry-run", "-o",
                                  (dir_ / "v3-26.gguf").string()});
  EXPECT_NE(v3_26.out.find("warning: ik_llama.cpp would read 26 layers as no query bottleneck (V2-Lite)"),
            std::string::npos)
      << v3_26.out;

  CommandRun kimi = run_command({"mkmodel", "--preset", "kimi-k2", "--dry-run", "-o", (dir_ / "k2.gguf").string()});
  ASSERT_EQ(kimi.exit_code, 0) << kimi.err;
  EXPECT_NE(kimi.out.find("deepseek2 preset kimi-k2, 61 layers, 7168 wide, 64/64 heads of 192"), std::string::npos)
      << kimi.out;
  EXPECT_NE(kimi.out.find("experts: 384 of width 2048"), std::string::npos) << kimi.out;
  EXPECT_NE(kimi.out.find("scaled by 2.827; YaRN 32 (log multiplier 0.1)"), std::string::npos) << kimi.out;
}

// The Nemotron presets' summaries: each layer's kind in the preset's pattern, the kinds counted, the
// Mamba-2 shapes and the experts; a cut without an attending layer shows the Mamba-2 layer that
// attends instead; a dense Nemotron preset is refused as nemotron_h_moe.
TEST_F(GgufCommandsTest, MkmodelDryRunOfNemotronPresets) {
  CommandRun nano = run_command({"mkmodel", "--preset", "nemotron-nano-9b-v2", "--type", "q4_k", "--dry-run", "-o",
                                 (dir_ / "nano.gguf").string()});
  ASSERT_EQ(nano.exit_code, 0) << nano.err;
  EXPECT_NE(nano.out.find("nemotron_h preset nemotron-nano-9b-v2, 56 layers, 4480 wide, 40/8 heads of 128, ffn 15680, "
                          "vocab 131072"),
            std::string::npos)
      << nano.out;
  EXPECT_NE(nano.out.find("nemotron_h: layers M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-: 27 "
                          "Mamba-2 (128 heads of 80, 8 group(s) of 128 state values, 4-tap convolution), 4 attention "
                          "(plain q/k/v, no rope), 25 squared-ReLU feed-forward (no gate)"),
            std::string::npos)
      << nano.out;
  EXPECT_NE(nano.out.find("8888227328 parameters"), std::string::npos) << nano.out;
  CommandRun cut = run_command({"mkmodel", "--preset", "nemotron-nano-9b-v2", "--layers", "7", "--dry-run", "-o",
                                (dir_ / "cut.gguf").string()});
  EXPECT_NE(cut.out.find("layers M-M-M-*: 3 Mamba-2"), std::string::npos) << cut.out;
  CommandRun moe = run_command({"mkmodel", "--preset", "nemotron-3-nano-30b-a3b", "--dry-run", "-o",
                                (dir_ / "moe.gguf").string()});
  ASSERT_EQ(moe.exit_code, 0) << moe.err;
  EXPECT_NE(moe.out.find("experts: 128 of width 1856, 6 used per token, a shared expert of width 3712"),
            std::string::npos)
      << moe.out;
  EXPECT_NE(moe.out.find("23 Mamba-2 (64 heads of 64, 8 group(s) of 128 state values, 4-tap convolution), 6 "
                         "attention (plain q/k/v, no rope), 23 with squared-ReLU experts"),
            std::string::npos)
      << moe.out;
  EXPECT_NE(moe.out.find("31577940288 parameters"), std::string::npos) << moe.out;
  CommandRun wrong = run_command({"mkmodel", "--arch", "nemotron_h_moe", "--preset", "nemotron-nano-9b-v2", "-o",
                                  (dir_ / "w.gguf").string()});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("--arch nemotron_h_moe needs one of: moe-tiny"), std::string::npos) << wrong.err;
}

// The LFM2 presets' summaries: each layer's kind in the preset's layer_types, the kinds counted, the
// taps and LFM2-MoE's dense lead and routing; a cut without an attending layer attends in its last; a
// dense LFM2 preset is refused as lfm2moe.
TEST_F(GgufCommandsTest, MkmodelDryRunOfLfm2Presets) {
  CommandRun dense = run_command({"mkmodel", "--preset", "lfm2-1.2b", "--type", "q4_k", "--dry-run", "-o",
                                  (dir_ / "lfm2.gguf").string()});
  ASSERT_EQ(dense.exit_code, 0) << dense.err;
  EXPECT_NE(dense.out.find("lfm2 preset lfm2-1.2b, 16 layers, 2048 wide, 32/8 heads of 64, ffn 8192, vocab 65536"),
            std::string::npos)
      << dense.out;
  EXPECT_NE(dense.out.find("lfm2: layers CC*CC*CC*C*C*C*C: 10 short convolution (3 taps), 6 attention (QK-norm, "
                           "NeoX rope)\n"),
            std::string::npos)
      << dense.out;
  EXPECT_NE(dense.out.find("1170340608 parameters"), std::string::npos) << dense.out;
  CommandRun cut = run_command({"mkmodel", "--preset", "lfm2-1.2b", "--layers", "2", "--dry-run", "-o",
                                (dir_ / "cut.gguf").string()});
  EXPECT_NE(cut.out.find("layers C*: 1 short convolution"), std::string::npos) << cut.out;
  CommandRun moe = run_command({"mkmodel", "--preset", "lfm2-8b-a1b", "--dry-run", "-o", (dir_ / "moe.gguf").string()});
  ASSERT_EQ(moe.exit_code, 0) << moe.err;
  EXPECT_NE(moe.out.find("experts: 32 of width 1792, 4 used per token\n"), std::string::npos) << moe.out;
  EXPECT_NE(moe.out.find("lfm2moe: layers CC*CCC*CCC*CCC*CCC*CC*CC: 18 short convolution (3 taps), 6 attention "
                         "(QK-norm, NeoX rope); 2 leading dense layer(s) of width 7168, then experts by sigmoid gates "
                         "with a selection bias (exp_probs_b), renormalised"),
            std::string::npos)
      << moe.out;
  EXPECT_NE(moe.out.find("8339930560 parameters"), std::string::npos) << moe.out;
  CommandRun wrong =
      run_command({"mkmodel", "--arch", "lfm2moe", "--preset", "lfm2-1.2b", "-o", (dir_ / "w.gguf").string()});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("--arch lfm2moe needs one of: moe-tiny"), std::string::npos) << wrong.err;
}

// The OLMo and EXAONE presets' summaries: OLMo 3's window and YaRN, EXAONE 4.0 32B's sliding layers and
// rope_freqs (a cut short of 64 layers attends over every key), OLMoE's routing; a dense OLMo preset is
// refused as olmoe.
TEST_F(GgufCommandsTest, MkmodelDryRunOfOlmoAndExaonePresets) {
  CommandRun olmo = run_command({"mkmodel", "--preset", "olmo-3-7b", "--type", "q4_k", "--dry-run", "-o",
                                 (dir_ / "olmo.gguf").string()});
  ASSERT_EQ(olmo.exit_code, 0) << olmo.err;
  EXPECT_NE(olmo.out.find("olmo2 preset olmo-3-7b, 32 layers, 4096 wide, 32/32 heads of 128, ffn 11008, vocab 100278"),
            std::string::npos)
      << olmo.out;
  EXPECT_NE(olmo.out.find("olmo2: no pre-norms, post_attention_norm and post_ffw_norm, QK-norm over whole rows, NeoX "
                          "rope; three of every four layers slide over 4096 keys, the others' rope YaRN 8 over 8192 "
                          "positions\n"),
            std::string::npos)
      << olmo.out;
  EXPECT_NE(olmo.out.find("7298011136 parameters"), std::string::npos) << olmo.out;
  CommandRun exaone = run_command({"mkmodel", "--preset", "exaone-4.0-32b", "--dry-run", "-o",
                                   (dir_ / "exaone.gguf").string()});
  ASSERT_EQ(exaone.exit_code, 0) << exaone.err;
  EXPECT_NE(exaone.out.find("exaone4: no pre-norms, post_attention_norm and post_ffw_norm, QK-norm per head, NeoX "
                            "rope; three of every four layers slide over 4096 keys, the fourth without rope; "
                            "rope_freqs.weight: llama3 factors (1 to 16, over 8192 positions)\n"),
            std::string::npos)
      << exaone.out;
  EXPECT_NE(exaone.out.find("32003216448 parameters"), std::string::npos) << exaone.out;
  CommandRun cut = run_command({"mkmodel", "--preset", "exaone-4.0-32b", "--layers", "4", "--dry-run", "-o",
                                (dir_ / "cut.gguf").string()});
  EXPECT_NE(cut.out.find("; window 4096 written, read only at 64 layers"), std::string::npos) << cut.out;
  CommandRun moe = run_command({"mkmodel", "--preset", "olmoe-1b-7b", "--dry-run", "-o", (dir_ / "moe.gguf").string()});
  ASSERT_EQ(moe.exit_code, 0) << moe.err;
  EXPECT_NE(moe.out.find("experts: 64 of width 1024, 8 used per token\n"), std::string::npos) << moe.out;
  EXPECT_NE(moe.out.find("olmoe: pre-norm layers, QK-norm over whole rows, NeoX rope; experts in every layer by "
                         "softmax, weights as they are, no shared expert\n"),
            std::string::npos)
      << moe.out;
  EXPECT_NE(moe.out.find("6919161856 parameters"), std::string::npos) << moe.out;
  CommandRun wrong =
      run_command({"mkmodel", "--arch", "olmoe", "--preset", "olmo-2-7b", "-o", (dir_ / "w.gguf").string()});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("--arch olmoe needs one of: moe-tiny"), std::string::npos) << wrong.err;
}

// The Falcon-H1, EXAONE 3.5 and AFM presets' summaries: Falcon-H1's Mamba-2 mixer beside attention in
// every layer, EXAONE 3.5's rope_freqs, AFM's gate-less feed-forward and YaRN over 4096; their published
// totals; a MoE preset is refused as falcon-h1.
TEST_F(GgufCommandsTest, MkmodelDryRunOfFalconH1ExaoneAndArceePresets) {
  CommandRun falcon = run_command({"mkmodel", "--preset", "falcon-h1-7b", "--type", "q4_k", "--dry-run", "-o",
                                   (dir_ / "falcon.gguf").string()});
  ASSERT_EQ(falcon.exit_code, 0) << falcon.err;
  EXPECT_NE(falcon.out.find("falcon-h1 preset falcon-h1-7b, 44 layers, 3072 wide, 12/2 heads of 128, ffn 12288, "
                            "vocab 130049"),
            std::string::npos)
      << falcon.out;
  EXPECT_NE(falcon.out.find("falcon-h1: every layer a Mamba-2 mixer (24 heads of 128, 1 group(s) of 256 state "
                            "values, 4-tap convolution) beside attention (plain q/k/v, NeoX rope) under one norm"),
            std::string::npos)
      << falcon.out;
  EXPECT_NE(falcon.out.find("7585654880 parameters"), std::string::npos) << falcon.out;
  EXPECT_NE(falcon.out.find("file type Q4_K_M"), std::string::npos) << falcon.out;
  CommandRun exaone = run_command({"mkmodel", "--preset", "exaone-3.5-7.8b", "--dry-run", "-o",
                                   (dir_ / "exaone.gguf").string()});
  ASSERT_EQ(exaone.exit_code, 0) << exaone.err;
  EXPECT_NE(exaone.out.find("exaone: llama's layers, NeoX rope, a SwiGLU feed-forward; rope_freqs.weight: llama3 "
                            "factors (1 to 8, over 8192 positions)\n"),
            std::string::npos)
      << exaone.out;
  EXPECT_NE(exaone.out.find("7818448960 parameters"), std::string::npos) << exaone.out;
  CommandRun afm = run_command({"mkmodel", "--preset", "afm-4.5b", "--dry-run", "-o", (dir_ / "afm.gguf").string()});
  ASSERT_EQ(afm.exit_code, 0) << afm.err;
  EXPECT_NE(afm.out.find("arcee: llama's layers, adjacent-pair rope, a squared-ReLU feed-forward without a gate; "
                         "rope YaRN 20 over 4096 positions\n"),
            std::string::npos)
      << afm.out;
  EXPECT_NE(afm.out.find("4619189760 parameters"), std::string::npos) << afm.out;
  CommandRun wrong =
      run_command({"mkmodel", "--arch", "falcon-h1", "--preset", "moe-tiny", "-o", (dir_ / "w.gguf").string()});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("--arch falcon-h1 needs one of: tiny"), std::string::npos) << wrong.err;
}

// BitNet b1.58 2B4T's summary: bitnet-b1.58's layers with their sub-norms, relu^2 gate and ternary
// matrices, its total (2.41B: 2.08B besides the embedding table); bitnet on another preset gates by SiLU;
// a MoE preset is refused as bitnet.
TEST_F(GgufCommandsTest, MkmodelDryRunOfBitnetPreset) {
  CommandRun b = run_command({"mkmodel", "--preset", "bitnet-b1.58-2b-4t", "--type", "tq2_0", "--dry-run", "-o",
                              (dir_ / "bitnet.gguf").string()});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_NE(b.out.find("bitnet-b1.58 preset bitnet-b1.58-2b-4t, 30 layers, 2560 wide, 20/5 heads of 128, ffn 6912, "
                       "vocab 128256"),
            std::string::npos)
      << b.out;
  EXPECT_NE(b.out.find("bitnet-b1.58: llama's layers, NeoX rope, attn_sub_norm before attn_output and ffn_sub_norm "
                       "before ffn_down, a relu^2-gated feed-forward, tied embeddings; every matrix but token_embd "
                       "ternary (-s, 0, +s)\n"),
            std::string::npos)
      << b.out;
  EXPECT_NE(b.out.find("2412820480 parameters"), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("file type TQ2_0"), std::string::npos) << b.out;
  CommandRun silu = run_command({"mkmodel", "--arch", "bitnet", "--preset", "small", "--dry-run", "-o",
                                 (dir_ / "silu.gguf").string()});
  ASSERT_EQ(silu.exit_code, 0) << silu.err;
  EXPECT_NE(silu.out.find("bitnet: llama's layers, NeoX rope"), std::string::npos) << silu.out;
  EXPECT_NE(silu.out.find("a SiLU-gated feed-forward"), std::string::npos) << silu.out;
  CommandRun wrong =
      run_command({"mkmodel", "--arch", "bitnet", "--preset", "moe-tiny", "-o", (dir_ / "w.gguf").string()});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("--arch bitnet needs one of: tiny"), std::string::npos) << wrong.err;
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
