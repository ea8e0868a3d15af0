#!/usr/bin/env bash
# The README's performance tables: for each file, in one run with 2 threads, `strata bench` on the
# default kernel table and on the AVX2 table (STRATA_KERNELS=avx2), then the peers on the same file:
# llama.cpp (Feb 2025) built native and AVX2-only, and ik_llama.cpp built AVX2-only with its
# run-time repacking and flash attention (-rtr 1 -fa 1). Prints one ready-to-paste markdown table
# per file: prefill of a 512-token prompt, decode of one sequence, and 8 sequences decoded
# together (Strata: one window of 8 after 512-token prompts; the peers: llama-batched-bench -npl 8,
# S_TG, after 128-token prompts). Strata's decode x1 follows its prompt (depth 512); the peers'
# tg32 starts at an empty context (slightly easier for them).
#   bench/side_by_side.sh [LLAMA_CPP_BIN] [LLAMA_CPP_AVX2_BIN] [IK_LLAMA_CPP_AVX2_BIN]
# A bin dir that is missing (or "") is built by bench/build_peer.sh in /tmp.
# env: FILES (default "q8_0 q4_k_m qwen15moe q30b"): q8_0, q4_k_m (and q2_k_m, q3_k_m, q5_k_m,
#      q6_k) are the generated TinyLlama-1.1B shapes (/tmp/avx2-tl-TYPE.gguf), qwen15moe the Qwen1.5-MoE-A2.7B shape with 8
#      layers, q30b the Qwen3-30B-A3B shape with 4 layers, mixtral the Mixtral-8x7B shape with 4
#      layers (all Q4_K_M, made when missing); an entry with a / is a file used as it is (e.g. a
#      llama-quantize output). ENGINES (default "strata strata-avx2 llama llama-avx2 ik-avx2"),
#      STRATA (binary; default a copy of build/src/cli/strata, so a rebuild cannot swap it
#      mid-run), WORK_DIR (/tmp), THREADS (2), PEER_ARGS (extra flags for every peer tool).
# Keep the machine quiet while it runs: the peers' spinning thread pools collapse when the cores
# are shared, and one run's figures compare only with each other. llama.cpp's Feb 2025 commit
# cannot load qwen3moe (its cells say "no load"); ik_llama.cpp mis-runs Mixtral-style files.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
files=${FILES:-q8_0 q4_k_m qwen15moe q30b}
engines=${ENGINES:-strata strata-avx2 llama llama-avx2 ik-avx2}
work=$(cd "${WORK_DIR:-/tmp}" && pwd)  # absolute: the batched benches run from it
threads=${THREADS:-2}
read -r -a peer_args <<<"${PEER_ARGS:-}"
peer_tools="llama-bench llama-batched-bench"

# The bin dir of a peer: the one given, else one build_peer.sh builds (only when an engine needs it).
peer_bin() {
  local given=$1 peer=$2 flavor=$3
  if [ -x "$given/llama-batched-bench" ]; then (cd "$given" && pwd); else
    TARGETS=$peer_tools "$root/bench/build_peer.sh" "$peer" "$flavor"; fi
}
declare -A bins=()
[[ " $engines " == *" llama "* ]] && bins[llama]=$(peer_bin "${1:-}" llama.cpp native)
[[ " $engines " == *" llama-avx2 "* ]] && bins[llama-avx2]=$(peer_bin "${2:-}" llama.cpp avx2)
[[ " $engines " == *" ik-avx2 "* ]] && bins[ik-avx2]=$(peer_bin "${3:-}" ik_llama.cpp avx2)
strata=${STRATA:-}
if [ -z "$strata" ]; then
  strata=$work/side-by-side-strata
  cp "$root/build/src/cli/strata" "$strata"
fi
vocab=$root/../shared/models/stories260K.gguf

# The path of a FILES entry, generated when missing.
model_file() {
  local f args
  case "$1" in
    */*) echo "$1"; return ;;
    q8_0) f=$work/avx2-tl-q8_0.gguf args="--preset 1b --type q8_0" ;;
    # mkmodel names the Q4_K_M mix q4_k (K-quant types take llama.cpp's _M mix).
    q4_k_m) f=$work/avx2-tl-q4_k_m.gguf args="--preset 1b --type q4_k" ;;
    q2_k_m | q3_k_m | q5_k_m) f=$work/avx2-tl-$1.gguf args="--preset 1b --type ${1%_m}" ;;
    q6_k) f=$work/avx2-tl-q6_k.gguf args="--preset 1b --type q6_k" ;;
    qwen15moe) f=$work/qwen15moe-l8-q4k.gguf args="--preset qwen1.5-moe-a2.7b --layers 8 --type q4_k" ;;
    q30b) f=$work/q30b-l4-q4k.gguf args="--preset qwen3-30b-a3b --layers 4 --type q4_k" ;;
    mixtral) f=$work/mixtral-l4-q4k.gguf args="--preset mixtral-8x7b --layers 4 --type q4_k" ;;
    *) echo "side_by_side: unknown file '$1' (known: q8_0 q4_k_m q2_k_m q3_k_m q5_k_m q6_k qwen15moe q30b mixtral, or a path)" >&2
       exit 2 ;;
  esac
  # The MoE files take the tiny llama's vocabulary (as the README's earlier MoE tables did); the
  # dense ones keep the preset's 32000-token one, so their output matrix is TinyLlama's.
  [[ $1 == q[0-9]_* ]] || args+=" --vocab-from $vocab"
  # shellcheck disable=SC2086  # args is a list of flags
  [ -f "$f" ] || "$strata" mkmodel $args -o "$f" >/dev/null
  echo "$f"
}

# The tok/s of strata bench's line starting with $2 (prefill or decode).
strata_tok_s() { grep -E "^$2 +[0-9]" <<<"$1" | awk '{print $2}'; }
# The aggregate tok/s of strata bench's "decode x8" line.
strata_x8() { grep -E '^decode x8 ' <<<"$1" | awk '{print $3}'; }
# The single-sequence roofline: on the active bytes for a MoE file, on all weights otherwise.
strata_roofline() {
  local moe
  moe=$(grep -E '^experts x1 ' <<<"$1" | sed -E 's/.*roofline ([0-9.]+).*/\1/')
  if [ -n "$moe" ]; then echo "$moe (active bytes)"; else grep -E '^roofline ' <<<"$1" | awk '{print $2}'; fi
}
# The t/s column (the last one) of llama-bench's markdown row for test $2 (pp512 or tg32).
peer_tok_s() {
  local v
  v=$(grep -E "\| +$2 +\|" <<<"$1" | awk -F'|' '{print $(NF-1)}' | awk '{print $1}')
  echo "${v:-no load}"
}
# S_TG t/s of llama-batched-bench's result row.
peer_x8() { grep -E '^\| +[0-9]' <<<"$1" | tail -1 | awk -F'|' '{print $9}' | tr -d ' '; }

# Strata's row; $2... are environment settings (STRATA_KERNELS=avx2). The label names the kernel
# table that ran (strata bench's "machine" line).
strata_row() {
  local file=$1 out table; shift
  out=$(env "$@" "$strata" bench -m "$file" --threads "$threads" --prompt-tokens 512)
  table=$(grep -E '^machine ' <<<"$out" | sed -E 's/.*, ([a-z0-9]+) kernels,.*/\1/')
  local label="Strata ($table table)"
  [ $# -gt 0 ] && label="Strata ($table table, $*)"
  echo "| $label | $(strata_tok_s "$out" prefill) | $(strata_tok_s "$out" decode) | $(strata_x8 "$out") |" \
    "$(strata_roofline "$out") |"
}
# A peer's row; $4 and $5 are extra flags for its llama-bench and its llama-batched-bench (they
# spell them differently: ik_llama.cpp's llama-bench takes "-rtr 1", its batched bench "-rtr").
# The tools run in $work: ik_llama.cpp's write llama.log into their working directory.
peer_row() {
  local label=$1 bin=$2 file=$3 b bb bench_flags batched_flags
  read -r -a bench_flags <<<"${4:-}"
  read -r -a batched_flags <<<"${5:-}"
  b=$(cd "$work" && "$bin/llama-bench" -m "$file" -t "$threads" -p 512 -n 32 -r 1 "${bench_flags[@]}" \
    "${peer_args[@]}" 2>/dev/null || true)
  bb=$(cd "$work" && "$bin/llama-batched-bench" -m "$file" -t "$threads" -c 2048 -b 512 -ub 512 -npp 128 \
    -ntg 32 -npl 8 "${batched_flags[@]}" "${peer_args[@]}" 2>&1 || true)
  echo "| $label | $(peer_tok_s "$b" pp512) | $(peer_tok_s "$b" tg32) | $(peer_x8 "$bb") | |"
}

echo "uptime before: $(uptime)"
echo "$(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $threads threads; tok/s;" \
  "peer flags: ${PEER_ARGS:-defaults}"
for entry in $files; do
  file=$(model_file "$entry")
  echo
  echo "$(basename "$file") ($(stat -c %s "$file" | awk '{printf "%.2f GB", $1 / 1e9}')), $(date -u +%H:%M) UTC:"
  echo
  echo "| engine | prefill 512 | decode x1 | decode x8 | roofline x1 |"
  echo "| --- | --- | --- | --- | --- |"
  for engine in $engines; do
    case "$engine" in
      strata) strata_row "$file" ;;
      strata-avx2) strata_row "$file" STRATA_KERNELS=avx2 ;;
      llama) peer_row "llama.cpp (native build)" "${bins[llama]}" "$file" ;;
      llama-avx2) peer_row "llama.cpp (AVX2-only build)" "${bins[llama-avx2]}" "$file" ;;
      ik-avx2) peer_row "ik_llama.cpp (AVX2-only build, -rtr 1 -fa 1)" "${bins[ik-avx2]}" "$file" "-rtr 1 -fa 1" "-rtr -fa on" ;;
      *) echo "side_by_side: unknown engine '$engine' (known: strata strata-avx2 llama llama-avx2 ik-avx2)" >&2
         exit 2 ;;
    esac
  done
done
echo
echo "uptime after: $(uptime)"
