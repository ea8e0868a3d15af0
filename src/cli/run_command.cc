// `strata run`: generate a continuation of one prompt on this machine, streamed to stdout
// token by token. The model-level path (no engine): one sequence, a contiguous K/V cache,
// the prompt read in chunks, then one forward pass per generated token. With --chat a thinking
// model's reasoning (<think> or gpt-oss's analysis channel) is printed apart from the answer
// (chat_reply_printer.h).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "base/clock.h"
#include "base/thread_pool.h"
#include "chat/chat_template.h"
#include "cli/chat_reply_printer.h"
#include "cli/commands.h"
#include "cli/run_prompt.h"
#include "fetch/model_source.h"
#include "fetch/model_source_flags.h"
#include "gguf/gguf_file.h"
#include "model/contiguous_kv.h"
#include "model/model.h"
#include "sampling/sampler.h"
#include "tokenizer/stream_decoder.h"
#include "tokenizer/tokenizer.h"

namespace strata::cli {

namespace {

constexpr int kPrefillChunk = 256;  // prompt rows per forward pass
constexpr int kDefaultMaxCtx = 4096;

struct RunFlags {
  ModelSourceOptions source;  // -m FILE, or where to find the default model
  std::string prompt;
  int n_predict = 128;
  float temperature = 0.8f;
  int64_t seed = -1;  // -1: random
  int top_k = 40;
  float top_p = 0.95f;
  int n_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  bool chat = false;
  int n_ctx = 0;  // 0: the model's trained context, at most kDefaultMaxCtx
};

// Everything a generation needs once the model is loaded.
struct Session {
  std::shared_ptr<const GgufFile> gguf;
  std::unique_ptr<Model> model;
  std::unique_ptr<Tokenizer> tokenizer;
  double load_s = 0;
};

// Checks the flags that CLI11 cannot; returns an error message or "".
std::string check_flags(const RunFlags& f) {
  if (f.n_predict < 0) return "-n must be >= 0, got " + std::to_string(f.n_predict);
  if (f.n_threads < 1) return "--threads must be >= 1, got " + std::to_string(f.n_threads);
  if (f.n_ctx < 0) return "--ctx must be >= 0, got " + std::to_string(f.n_ctx);
  if (f.temperature < 0) return "--temp must be >= 0";
  if (f.top_k < 0) return "--top-k must be >= 0, got " + std::to_string(f.top_k);
  if (!(f.top_p > 0.0f && f.top_p <= 1.0f)) return "--top-p must be in (0, 1]";
  return "";
}

Result<Session> load(const RunFlags& f) {
  STRATA_ASSIGN_OR_RETURN(std::string path, resolve_model(f.source));
  const double start_s = monotonic_s();
  Session s;
  STRATA_ASSIGN_OR_RETURN(GgufFile file, GgufFile::Open(path));
  s.gguf = std::make_shared<const GgufFile>(std::move(file));
  STRATA_ASSIGN_OR_RETURN(s.model, Model::FromGguf(s.gguf));
  STRATA_ASSIGN_OR_RETURN(s.tokenizer, Tokenizer::FromGguf(*s.gguf));
  s.load_s = monotonic_s() - start_s;
  return s;
}

Result<std::vector<int32_t>> prompt_tokens(const Session& s, const RunFlags& f, const ChatTemplate& chat_template) {
  if (!f.chat) return run_text_prompt(*s.tokenizer, f.prompt);
  return run_chat_prompt(*s.tokenizer, chat_template, f.prompt);
}

struct Generation {
  int n_prompt = 0;
  int n_generated = 0;
  double prefill_s = 0;
  double decode_s = 0;
  int n_decode_passes = 0;
};

// Reads the prompt, then samples and streams up to n_predict tokens (fewer at an
// end-of-generation token or when the context is full), printed through `printer`.
Result<Generation> generate(const Session& s, const RunFlags& f, const std::vector<int32_t>& prompt, int n_ctx,
                            uint64_t seed, ChatReplyPrinter& printer) {
  const Model& m = *s.model;
  const int n_vocab = m.hparams().n_vocab;
  ThreadPool pool(f.n_threads);
  const KvLayout layout = m.kv_layout(DType::kF16, 16);
  STRATA_RETURN_IF_ERROR(m.check_kv_layout(layout));
  STRATA_ASSIGN_OR_RETURN(auto kv, ContiguousKv::Create(layout, 1, n_ctx));
  const int n_prompt = static_cast<int>(prompt.size());
  auto scratch = m.make_scratch(std::min(n_prompt, kPrefillChunk), n_ctx, f.n_threads);
  std::vector<float> logits(static_cast<size_t>(n_vocab));
  std::vector<Row> rows;
  rows.reserve(static_cast<size_t>(std::min(n_prompt, kPrefillChunk)));

  Generation g;
  g.n_prompt = n_prompt;
  double start_s = monotonic_s();
  for (int pos0 = 0; pos0 < n_prompt; pos0 += kPrefillChunk) {
    rows.clear();
    for (int pos = pos0; pos < std::min(n_prompt, pos0 + kPrefillChunk); ++pos) {
      rows.push_back(Row{0, pos, prompt[static_cast<size_t>(pos)], pos == n_prompt - 1});
    }
    m.forward(rows, *kv, logits.data(), *scratch, pool);
  }
  g.prefill_s = monotonic_s() - start_s;

  Sampler sampler(n_vocab);
  SamplingConfig config;
  config.temperature = f.temperature;
  config.top_k = f.top_k;
  config.top_p = f.top_p;
  config.seed = seed;
  StreamDecoder decoder(*s.tokenizer);
  std::vector<int32_t> history = prompt;
  std::string piece;
  start_s = monotonic_s();
  for (int pos = n_prompt; g.n_generated < f.n_predict && pos < n_ctx; ++pos) {
    STRATA_ASSIGN_OR_RETURN(SampleResult next, sampler.sample(logits, config, history, pos));
    if (s.tokenizer->is_eog(next.token)) break;
    history.push_back(next.token);
    ++g.n_generated;
    piece.clear();
    decoder.push(next.token, &piece);
    std::fputs(printer.feed(piece).c_str(), stdout);
    std::fflush(stdout);
    if (g.n_generated == f.n_predict || pos + 1 == n_ctx) break;
    const Row row{0, pos, next.token, true};
    m.forward({&row, 1}, *kv, logits.data(), *scratch, pool);
    ++g.n_decode_passes;
  }
  g.decode_s = monotonic_s() - start_s;
  std::fputs((printer.feed(decoder.flush()) + printer.finish() + "\n").c_str(), stdout);
  std::fflush(stdout);
  return g;
}

int run(const RunFlags& f) {
  if (std::string err = check_flags(f); !err.empty()) {
    std::fprintf(stderr, "run: %s\n", err.c_str());
    return 2;
  }
  auto session = load(f);
  if (!session.ok()) {
    std::fprintf(stderr, "run: %s\n", session.status().ToString().c_str());
    return 2;
  }
  const ChatTemplate chat_template =
      f.chat ? template_or_chatml(session->gguf->get_string("tokenizer.chat_template")) : ChatTemplate::ChatML();
  auto prompt = prompt_tokens(*session, f, chat_template);
  if (!prompt.ok()) {
    std::fprintf(stderr, "run: chat template: %s\n", prompt.status().ToString().c_str());
    return 2;
  }
  const Hparams& hp = session->model->hparams();
  const int n_ctx = f.n_ctx > 0 ? f.n_ctx : std::min(hp.n_ctx_train, kDefaultMaxCtx);
  if (prompt->empty() || static_cast<int>(prompt->size()) >= n_ctx) {
    std::fprintf(stderr, "run: the prompt is %zu tokens; it must be 1 to %d (--ctx %d)\n", prompt->size(), n_ctx - 1,
                 n_ctx);
    return 2;
  }
  const uint64_t seed = f.seed >= 0 ? static_cast<uint64_t>(f.seed) : std::random_device{}();
  const server::ReasoningMode reasoning =
      f.chat ? run_reasoning_mode(*session->tokenizer, chat_template, *prompt) : server::ReasoningMode{};
  ChatReplyPrinter printer(reasoning, ChatReplyPrinter::StyleFor(isatty(STDOUT_FILENO) == 1));
  auto g = generate(*session, f, *prompt, n_ctx, seed, printer);
  if (!g.ok()) {
    std::fprintf(stderr, "run: %s\n", g.status().ToString().c_str());
    return 1;
  }
  std::fprintf(stderr, "load %.2f s | prompt %d tokens, %.1f tok/s | decode %d tokens, %.1f tok/s | seed %llu\n",
               session->load_s, g->n_prompt, g->n_prompt / std::max(g->prefill_s, 1e-9), g->n_generated,
               g->n_decode_passes / std::max(g->decode_s, 1e-9), static_cast<unsigned long long>(seed));
  return 0;
}

}  // namespace

void add_run_command(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("run", "Generate a continuation of a prompt, streamed to stdout");
  auto flags = std::make_shared<RunFlags>();
  sub->add_option("-m,--model", flags->source.model_path, "GGUF model file (default: the default model, see --hf-repo)");
  sub->add_option("-p,--prompt", flags->prompt, "prompt text")->required();
  sub->add_option("-n,--n-predict", flags->n_predict, "tokens to generate at most")->capture_default_str();
  sub->add_option("--temp", flags->temperature, "sampling temperature (0: greedy)")->capture_default_str();
  sub->add_option("--seed", flags->seed, "random seed (default: random)");
  sub->add_option("--top-k", flags->top_k, "keep the k most likely tokens (0: off)")->capture_default_str();
  sub->add_option("--top-p", flags->top_p, "nucleus sampling mass (1: off)")->capture_default_str();
  sub->add_option("--threads", flags->n_threads, "threads")->capture_default_str();
  sub->add_flag("--chat", flags->chat,
                "apply the model's chat template to the prompt as one user message; a thinking model's "
                "reasoning is printed apart from its answer (dimmed, or after 'Reasoning: ' when not a terminal)");
  sub->add_option("--ctx", flags->n_ctx, "context size in tokens (default: the model's, at most 4096)");
  add_model_source_flags(sub, &flags->source);
  sub->callback([flags, exit_code] { *exit_code = run(*flags); });
}

}  // namespace strata::cli
