#!/usr/bin/env bash
# Mixture-of-experts side by side: generates the two MoE files of the README's table (unless they
# exist), then runs llama.cpp's llama-bench and llama-batched-bench and `strata bench` on each, in
# one run. llama.cpp is built outside this tree (see DEVELOPERS.md, "Measuring against a peer");
# pass its bin directory, or "" (or a missing directory) to have bench/build_peer.sh build it in
# /tmp. Keep the machine quiet while it runs.
#   bench/moe_side_by_side.sh [/tmp/llama.cpp/build/bin] [work dir, default /tmp]
set -euo pipefail
peer_bin=${1:-}
work=${2:-/tmp}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$peer_bin/llama-batched-bench" ] ||
  peer_bin=$(TARGETS="llama-bench llama-batched-bench" "$root/bench/build_peer.sh" llama.cpp native)
strata=$root/build/src/cli/strata
vocab=$root/../shared/models/stories260K.gguf
declare -A files=(
  [mixtral-l4-q4k]="--preset mixtral-8x7b --layers 4"
  [qwen15moe-l8-q4k]="--preset qwen1.5-moe-a2.7b --layers 8"
)
for name in "${!files[@]}"; do
  f=$work/$name.gguf
  [ -f "$f" ] || "$strata" mkmodel ${files[$name]} --type q4_k --vocab-from "$vocab" -o "$f"
  echo "== $name"
  "$peer_bin/llama-bench" -m "$f" -t 2 -p 512 -n 32 -r 2 | grep -E 'pp512|tg32'
  "$peer_bin/llama-batched-bench" -m "$f" -c 2048 -b 512 -ub 512 -npp 128 -ntg 32 -npl 8 -t 2 2>/dev/null |
    grep -E '^\|' | tail -1
  "$strata" bench -m "$f" --threads 2 | grep -E 'bandwidth|prefill|decode|experts x'
done
