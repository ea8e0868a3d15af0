// `strata tokenize`, run as the built binary: its exact output (--ids and the default listing),
// --bos, -f FILE, and the exit codes and messages for files it cannot open.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "tokenizer/test_vocab.h"

extern char** environ;

namespace strata {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLlama = "ggml-vocab-llama-spm.gguf";
constexpr const char* kGpt2 = "ggml-vocab-gpt-2.gguf";

struct CliRun {
  int exit_code = -1;
  std::string out, err;
};

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string ids_line(const std::vector<int32_t>& ids) {
  std::string out;
  for (int32_t id : ids) out += (out.empty() ? "" : " ") + std::to_string(id);
  return out + "\n";
}

class TokenizeCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-cli-tokenize-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `strata tokenize args...` with stdout and stderr in files, so neither pipe can fill up.
  CliRun tokenize(const std::vector<std::string>& args) {
    const std::string out_path = (dir_ / "stdout").string();
    const std::string err_path = (dir_ / "stderr").string();
    std::vector<std::string> words = {STRATA_CLI_PATH, "tokenize"};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = -1;
    const int spawn_error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    CliRun run;
    if (spawn_error != 0) {
      ADD_FAILURE() << "cannot start " << argv[0] << ": " << std::strerror(spawn_error);
      return run;
    }
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) {
      ADD_FAILURE() << "waitpid failed for " << argv[0];
      return run;
    }
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.out = read_all(out_path);
    run.err = read_all(err_path);
    return run;
  }

  std::string write_text_file(const std::string& text) {
    const fs::path path = dir_ / "input.txt";
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  // For each chosen vector of a vocab, --ids with the text as an argument and with -f FILE both
  // print exactly the expected ids; with --bos (tried on the first) bos_id comes before them.
  void check_vectors(const char* vocab, std::span<const size_t> picks, std::span<const size_t> file_picks,
                     int32_t bos_id) {
    const std::string model = shared_vocab_path(vocab);
    const std::vector<std::string> inputs = read_vocab_inputs(vocab);
    const std::vector<std::vector<int32_t>> expected = read_vocab_expected(vocab);
    ASSERT_EQ(inputs.size(), expected.size());
    for (size_t i : picks) {
      ASSERT_LT(i, inputs.size());
      SCOPED_TRACE(std::string(vocab) + " input " + std::to_string(i) + ": " + escape_bytes(inputs[i]));
      const std::string want = ids_line(expected[i]);

      CliRun arg = tokenize({"-m", model, "--ids", inputs[i]});
      EXPECT_EQ(arg.exit_code, 0) << arg.err;
      EXPECT_EQ(arg.out, want);

      if (std::find(file_picks.begin(), file_picks.end(), i) == file_picks.end()) continue;
      CliRun file = tokenize({"-m", model, "--ids", "-f", write_text_file(inputs[i])});
      EXPECT_EQ(file.exit_code, 0) << file.err;
      EXPECT_EQ(file.out, want);
    }
    const size_t first = picks[0];
    std::vector<int32_t> with_bos = {bos_id};
    with_bos.insert(with_bos.end(), expected[first].begin(), expected[first].end());
    CliRun bos = tokenize({"-m", model, "--ids", "--bos", inputs[first]});
    EXPECT_EQ(bos.exit_code, 0) << bos.err;
    EXPECT_EQ(bos.out, ids_line(with_bos));
  }

  fs::path dir_;
};

// Words, tabs and newlines, byte fallback or byte-level emoji, mixed scripts: what the command line
// could mangle on its way to the tokenizer (tokenizer_test checks every vector in-process).
constexpr size_t kPicks[] = {11, 10, 18, 32};
// -f reads the same text from a file: what it could get wrong is bytes (line ends, tabs, bytes that
// are not whole characters), so it runs on the picks that have them. Each run starts `strata`, which
// is most of this test's time (a second a start under the sanitizers).
constexpr size_t kFilePicks[] = {10, 18};

TEST_F(TokenizeCommandTest, LlamaIdsMatchTheVectors) { check_vectors(kLlama, kPicks, kFilePicks, 1); }

// GPT-2 does not add BOS itself, but --bos still puts its BOS (<|endoftext|>) first.
TEST_F(TokenizeCommandTest, Gpt2IdsMatchTheVectors) { check_vectors(kGpt2, kPicks, kFilePicks, 50256); }

// An empty file is an empty text: no ids, one empty line.
TEST_F(TokenizeCommandTest, EmptyFileGivesAnEmptyLine) {
  CliRun run = tokenize({"-m", shared_vocab_path(kLlama), "--ids", "-f", write_text_file("")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "\n");
}

// One token a line: the id right-aligned in six columns, then the piece quoted, with ' ' for
// SentencePiece's "▁", escapes for control characters and \xNN for bytes that are not whole characters.
TEST_F(TokenizeCommandTest, LlamaDefaultOutputListsIdsAndQuotedPieces) {
  CliRun run = tokenize({"-m", shared_vocab_path(kLlama), "Hello world\t\"\\\" \u00fc\U0001F999\n"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, R"( 15043 " Hello"
  3186 " world"
    12 "\t"
 29908 "\""
  5931 "\\\""
  2505 " ü"
   243 "\xF0"
   162 "\x9F"
   169 "\xA6"
   156 "\x99"
    13 "\n"
)");
}

TEST_F(TokenizeCommandTest, Gpt2DefaultOutputListsIdsAndQuotedPieces) {
  CliRun run = tokenize({"-m", shared_vocab_path(kGpt2), "--bos", "Hello world"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            " 50256 \"<|endoftext|>\"\n"
            " 15496 \"Hello\"\n"
            "   995 \" world\"\n");
}

TEST_F(TokenizeCommandTest, MissingModelFileFailsNamingIt) {
  const std::string missing = (dir_ / "no-such-model.gguf").string();
  CliRun run = tokenize({"-m", missing, "--ids", "Hello"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find(missing), std::string::npos) << run.err;
}

TEST_F(TokenizeCommandTest, UnreadableTextFileFailsNamingIt) {
  const std::string missing = (dir_ / "no-such-prompt.txt").string();
  CliRun run = tokenize({"-m", shared_vocab_path(kLlama), "--ids", "-f", missing});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find(missing), std::string::npos) << run.err;

  // A directory opens but cannot be read as text.
  CliRun dir = tokenize({"-m", shared_vocab_path(kLlama), "--ids", "-f", dir_.string()});
  EXPECT_NE(dir.exit_code, 0);
  EXPECT_NE(dir.err.find(dir_.string()), std::string::npos) << dir.err;
}

TEST_F(TokenizeCommandTest, TextAndFileTogetherIsAUsageError) {
  CliRun run = tokenize({"-m", shared_vocab_path(kLlama), "-f", write_text_file("Hi"), "Hi"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("exactly one"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace strata
