#!/usr/bin/env bash
# Long-context attention side by side: `strata bench --context N` (prefill of an N-token prompt,
# then decode at depth N) with the default kernel table and with STRATA_KERNELS=avx2, beside
# llama.cpp's llama-bench with flash attention (-fa 1) on the same generated 1.1B Q8_0 file, in
# one run. llama.cpp is built outside this tree (DEVELOPERS.md, "Measuring against a peer"); pass
# its bin directory, or "" (or a missing directory) to have bench/build_peer.sh build it in /tmp.
# Keep the machine quiet while it runs.
#   bench/long_context_side_by_side.sh [/tmp/llama.cpp/build/bin] [contexts, default "512 2048 4096"] [kv type, default f16]
# (STRATA=path/to/strata and MODEL=file.gguf override the binary and the generated 1.1B Q8_0 file)
set -euo pipefail
peer_bin=${1:-}
contexts=${2:-512 2048 4096}
kv=${3:-f16}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$peer_bin/llama-batched-bench" ] ||
  peer_bin=$(TARGETS="llama-bench llama-batched-bench" "$root/bench/build_peer.sh" llama.cpp native)
strata=${STRATA:-$root/build/src/cli/strata}
model=${MODEL:-/tmp/tl-q8.gguf}
[ -f "$model" ] || "$strata" mkmodel --preset 1b --type q8_0 -o "$model"
uptime
for n in $contexts; do
  echo "== context $n, K/V $kv"
  for table in default avx2; do
    env_kernels=()
    [ "$table" = avx2 ] && env_kernels=(STRATA_KERNELS=avx2)
    echo "strata ($table table):"
    env "${env_kernels[@]}" "$strata" bench -m "$model" --threads 2 --context "$n" --kv-type "$kv" --decode-steps 16 |
      grep -E '^(prefill|decode) '
  done
  # llama.cpp: llama-bench for the prompt; this version has no depth option (-d), so decode at
  # depth N comes from llama-batched-bench (one sequence, N-token prompt, then 16 tokens: S_TG).
  "$peer_bin/llama-bench" -m "$model" -t 2 -fa 1 -ctk "$kv" -ctv "$kv" -p "$n" -n 0 -r 1 | grep -E 'pp'
  "$peer_bin/llama-batched-bench" -m "$model" -t 2 -fa -ctk "$kv" -ctv "$kv" -c $((n + 64)) -b 2048 -ub 512 \
    -npp "$n" -ntg 16 -npl 1 2>/dev/null | grep -E '^\|' | tail -2
done
