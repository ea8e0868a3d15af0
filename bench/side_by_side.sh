#!/usr/bin/env bash
# The README's performance tables: for each file, with 2 threads, `strata bench` on the
# default kernel table and on the AVX2 table (STRATA_KERNELS=avx2), then the peers on the same file:
# llama.cpp (Feb 2025) built native and AVX2-only, and ik_llama.cpp built AVX2-only (and, as the
# engine "ik", native) with its run-time repacking and flash attention (-rtr 1 -fa 1). Prints one
# ready-to-paste markdown table per file: prefill of a 512-token prompt, decode of one sequence,
# and 8 sequences decoded together, each decode at the same depth for every engine: x1 from an
# empty context (the peers' llama-bench tg32), x8 from depth 128 (Strata: one window of 8; the
# peers: llama-batched-bench -npl 8, S_TG, after 128-token prompts).
#   bench/side_by_side.sh [LLAMA_CPP_BIN] [LLAMA_CPP_AVX2_BIN] [IK_LLAMA_CPP_AVX2_BIN] [IK_LLAMA_CPP_BIN]
# A bin dir that is missing (or "") is built by bench/build_peer.sh in /tmp.
# env: FILES (default "q8_0 q4_k_m qwen15moe q30b"): q8_0, q4_k_m (and q2_k_m, q3_k_m, q5_k_m,
#      q6_k) are the generated TinyLlama-1.1B shapes (/tmp/avx2-tl-TYPE.gguf), qwen15moe the Qwen1.5-MoE-A2.7B shape with 8
#      layers, q30b the Qwen3-30B-A3B shape with 4 layers, mixtral the Mixtral-8x7B shape with 4
#      layers, llama3 the Llama-3-8B shape with 8 of its 32 layers and its 128256-token output
#      (all Q4_K_M, made when missing); an entry with a / is a file used as it is (e.g. a
#      llama-quantize output). ENGINES (default "strata strata-avx2 llama llama-avx2 ik-avx2";
#      "ik" adds ik_llama.cpp's native build, the peer to the default table on AVX-512 CPUs),
#      STRATA (binary; default a copy of build/src/cli/strata, so a rebuild cannot swap it
#      mid-run), WORK_DIR (/tmp), THREADS (2), PEER_ARGS (extra flags for every peer tool),
#      REPEATS (1: how many times the engines take turns on each file; with more, each cell is
#      the median of its runs, as a cloud VM's speed moves by a fifth between minutes).
# Keep the machine quiet while it runs: the peers' spinning thread pools collapse when the cores
# are shared, and one run's figures compare only with each other. llama.cpp's Feb 2025 commit
# cannot load qwen3moe (its cells say "no load"); ik_llama.cpp mis-runs Mixtral-style files.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
files=${FILES:-q8_0 q4_k_m qwen15moe q30b}
engines=${ENGINES:-strata strata-avx2 llama llama-avx2 ik-avx2}
work=$(cd "${WORK_DIR:-/tmp}" && pwd)  # absolute: the batched benches run from it
threads=${THREADS:-2}
repeats=${REPEATS:-1}
read -r -a peer_args <<<"${PEER_ARGS:-}"
peer_tools="llama-bench llama-batched-bench"
known_engines="strata strata-avx2 llama llama-avx2 ik-avx2 ik"  # engine_row() runs each
for engine in $engines; do
  [[ " $known_engines " == *" $engine "* ]] ||
    { echo "side_by_side: unknown engine '$engine' (known: $known_engines)" >&2; exit 2; }
done

# shellcheck source=bench/peer_rows.sh
source "$root/bench/peer_rows.sh"
check_repeats "$repeats"
declare -A bins=()
[[ " $engines " == *" llama "* ]] && bins[llama]=$(peer_bin "${1:-}" llama.cpp native "$peer_tools")
[[ " $engines " == *" llama-avx2 "* ]] && bins[llama-avx2]=$(peer_bin "${2:-}" llama.cpp avx2 "$peer_tools")
[[ " $engines " == *" ik-avx2 "* ]] && bins[ik-avx2]=$(peer_bin "${3:-}" ik_llama.cpp avx2 "$peer_tools")
[[ " $engines " == *" ik "* ]] && bins[ik]=$(peer_bin "${4:-}" ik_llama.cpp native "$peer_tools")
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
    # The MoE files take the tiny llama's vocabulary (as the README's earlier MoE tables did); the
    # dense ones keep their preset's (32000 or 128256 tokens), so their output matrix is the real one.
    qwen15moe) f=$work/qwen15moe-l8-q4k.gguf args="--preset qwen1.5-moe-a2.7b --layers 8 --type q4_k --vocab-from $vocab" ;;
    q30b) f=$work/q30b-l4-q4k.gguf args="--preset qwen3-30b-a3b --layers 4 --type q4_k --vocab-from $vocab" ;;
    mixtral) f=$work/mixtral-l4-q4k.gguf args="--preset mixtral-8x7b --layers 4 --type q4_k --vocab-from $vocab" ;;
    llama3) f=$work/llama3-8b-l8-q4k.gguf args="--preset llama3-8b --layers 8 --type q4_k" ;;
    *) echo "side_by_side: unknown file '$1' (known: q8_0 q4_k_m q2_k_m q3_k_m q5_k_m q6_k qwen15moe q30b mixtral llama3, or a path)" >&2
       exit 2 ;;
  esac
  # shellcheck disable=SC2086  # args is a list of flags
  [ -f "$f" ] || "$strata" mkmodel $args -o "$f" >/dev/null
  echo "$f"
}

# One run of ENGINE's row on FILE.
engine_row() {
  local engine=$1 file=$2
  case "$engine" in
    strata) strata_row "$file" ;;
    strata-avx2) strata_row "$file" STRATA_KERNELS=avx2 ;;
    llama) peer_row "llama.cpp (native build)" "${bins[llama]}" "$file" ;;
    llama-avx2) peer_row "llama.cpp (AVX2-only build)" "${bins[llama-avx2]}" "$file" ;;
    ik-avx2) ik_row "ik_llama.cpp (AVX2-only build, -rtr 1 -fa 1)" "${bins[ik-avx2]}" "$file" ;;
    ik) ik_row "ik_llama.cpp (native build, -rtr 1 -fa 1)" "${bins[ik]}" "$file" ;;
  esac
}

echo "uptime before: $(uptime)"
echo "$(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $threads threads; tok/s;" \
  "peer flags: ${PEER_ARGS:-defaults}"
[ "$repeats" -eq 1 ] || echo "Each cell is the median of $repeats runs, the engines taking turns."
for entry in $files; do
  file=$(model_file "$entry")
  echo
  echo "$(basename "$file") ($(stat -c %s "$file" | awk '{printf "%.2f GB", $1 / 1e9}')), $(date -u +%H:%M) UTC:"
  echo
  echo "| engine | prefill 512 | decode x1 | decode x8 | roofline x1 |"
  echo "| --- | --- | --- | --- | --- |"
  declare -A runs=()
  for ((run = 1; run <= repeats; run++)); do
    for engine in $engines; do runs[$engine]+="$(engine_row "$engine" "$file")"$'\n'; done
  done
  for engine in $engines; do median_row "${runs[$engine]%$'\n'}"; done
  unset runs
done
echo
echo "uptime after: $(uptime)"
