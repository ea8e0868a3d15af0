#!/usr/bin/env bash
# Mixture-of-experts side by side on the AVX2 kernel table: generates the qwen3moe and qwen2moe
# files of the README's "Mixture of experts" AVX2 table (unless they exist), then runs, back to
# back in one run with 2 threads, `strata bench` on the AVX2 table (STRATA_KERNELS=avx2),
# ik_llama.cpp's llama-bench (-rtr 1 -fa 1) and llama.cpp's llama-bench (the Feb 2025 commit has
# no qwen3moe: its cell says "no load"), and for 8 sequences decoded together ik_llama.cpp's
# llama-batched-bench (-npl 8, 128-token prompts, S_TG) beside Strata's "decode x8".
# Both peers are built outside this tree for AVX2 only (bench/build_peer.sh PEER avx2); pass
# their bin directories, or "" (or a missing directory) to have build_peer.sh build them in /tmp.
# Prints one markdown row per workload and run; keep the machine quiet meanwhile (the peers'
# spinning thread pools collapse when the 2 cores are oversubscribed: their decode figures
# from a loaded machine say nothing).
#   [STRATA=binary] bench/moe_avx2_side_by_side.sh [LLAMA_CPP_BIN] [IK_LLAMA_CPP_BIN] [WORK_DIR, default /tmp] [RUNS, default 1]
# Strata's decode figure is one sequence after the 512-token prompt; the peers' tg32 starts at
# an empty context (slightly easier for them).
set -euo pipefail
llama_bin=${1:-}
ik_bin=${2:-}
work=$(cd "${3:-/tmp}" && pwd)  # absolute: the batched bench runs from it
runs=${4:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$llama_bin/llama-bench" ] || llama_bin=$(TARGETS="llama-bench" "$root/bench/build_peer.sh" llama.cpp avx2)
[ -x "$ik_bin/llama-batched-bench" ] ||
  ik_bin=$(TARGETS="llama-bench llama-batched-bench" "$root/bench/build_peer.sh" ik_llama.cpp avx2)
strata=${STRATA:-$root/build/src/cli/strata}  # STRATA=path: a copy that a rebuild cannot replace mid-run
vocab=$root/../shared/models/stories260K.gguf

# The t/s column of llama-bench's markdown row for test $2 (pp512 or tg32), or "no load".
peer_tok_s() {
  local v
  v=$(grep -E "\| +$2 +\|" <<<"$1" | awk -F'|' '{print $(NF-1)}' | awk '{print $1}')
  echo "${v:-no load}"
}
# The tok/s of strata bench's line starting with $2 (prefill or decode).
strata_tok_s() { grep -E "^$2 +[0-9]" <<<"$1" | awk '{print $2}'; }
# The aggregate tok/s of strata bench's "decode x8" line.
strata_x8() { grep -E '^decode x8 ' <<<"$1" | awk '{print $3}'; }
# S_TG t/s of llama-batched-bench's result row.
peer_x8() { grep -E '^\| +[0-9]' <<<"$1" | tail -1 | awk -F'|' '{print $9}' | tr -d ' '; }

declare -A presets=(
  [q30b-l4-q4k]="--preset qwen3-30b-a3b --layers 4"
  [qwen15moe-l8-q4k]="--preset qwen1.5-moe-a2.7b --layers 8"
)
uptime
echo "| file | workload | Strata (avx2 table) | ik_llama.cpp (AVX2, -rtr 1 -fa 1) | llama.cpp (AVX2) |"
echo "| --- | --- | --- | --- | --- |"
for name in q30b-l4-q4k qwen15moe-l8-q4k; do
  f=$work/$name.gguf
  [ -f "$f" ] || "$strata" mkmodel ${presets[$name]} --type q4_k --vocab-from "$vocab" -o "$f" >/dev/null
  for _ in $(seq "$runs"); do
    s=$(STRATA_KERNELS=avx2 "$strata" bench -m "$f" --threads 2 --prompt-tokens 512)
    k=$("$ik_bin/llama-bench" -m "$f" -t 2 -p 512 -n 32 -r 1 -rtr 1 -fa 1 2>/dev/null || true)
    l=$("$llama_bin/llama-bench" -m "$f" -t 2 -p 512 -n 32 -r 1 2>/dev/null || true)
    # (in $work: llama-batched-bench writes llama.log into its working directory)
    kb=$(cd "$work" && "$ik_bin/llama-batched-bench" -m "$f" -t 2 -c 2048 -b 512 -ub 512 -npp 128 -ntg 32 -npl 8 -fa 1 2>&1 || true)
    echo "| $name | prefill 512 | $(strata_tok_s "$s" prefill) | $(peer_tok_s "$k" pp512) | $(peer_tok_s "$l" pp512) |"
    echo "| $name | decode | $(strata_tok_s "$s" decode) | $(peer_tok_s "$k" tg32) | $(peer_tok_s "$l" tg32) |"
    echo "| $name | 8 sequences decode | $(strata_x8 "$s") | $(peer_x8 "$kb") | |"
    grep -E '^(roofline|experts x1 )' <<<"$s" | sed "s/^/  $name strata /"
  done
done
uptime
