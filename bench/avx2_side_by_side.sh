#!/usr/bin/env bash
# AVX2 side by side (issue 13, items 1-2): generates the two TinyLlama-1.1B-shaped files of the
# README's AVX2 table (unless they exist), then runs, back to back in one run with 2 threads,
# `strata bench` on the AVX2 kernel table (STRATA_KERNELS=avx2), llama.cpp's llama-bench and
# ik_llama.cpp's llama-bench (with its run-time repacking and flash attention, -rtr 1 -fa 1),
# and for 8 sequences decoded together the peers' llama-batched-bench (-npl 8, 128-token prompts,
# S_TG) beside Strata's "decode x8" (8 sequences in one forward pass).
# Both peers are built outside this tree for AVX2 only (see DEVELOPERS.md, "Measuring against a
# peer": -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON); pass their bin
# directories, or "" (or a missing directory) to have bench/build_peer.sh build them in /tmp.
# Prints one markdown row per workload and run; keep the machine quiet meanwhile.
#   [STRATA=binary] bench/avx2_side_by_side.sh [LLAMA_CPP_BIN] [IK_LLAMA_CPP_BIN] [WORK_DIR, default /tmp] [RUNS, default 1]
# Strata's decode figure is one sequence after the 512-token prompt; the peers' tg32 starts at
# an empty context (slightly easier for them).
set -euo pipefail
llama_bin=${1:-}
ik_bin=${2:-}
work=$(cd "${3:-/tmp}" && pwd)  # absolute: the batched bench runs from it
runs=${4:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$llama_bin/llama-batched-bench" ] ||
  llama_bin=$(TARGETS="llama-bench llama-batched-bench" "$root/bench/build_peer.sh" llama.cpp avx2)
[ -x "$ik_bin/llama-batched-bench" ] ||
  ik_bin=$(TARGETS="llama-bench llama-batched-bench" "$root/bench/build_peer.sh" ik_llama.cpp avx2)
llama_bin=$(cd "$llama_bin" && pwd) ik_bin=$(cd "$ik_bin" && pwd)  # absolute: batched() leaves the cwd
strata=${STRATA:-$root/build/src/cli/strata}  # STRATA=path: a copy that a rebuild cannot replace mid-run

# The t/s column (the last one) of llama-bench's markdown row for test $2 (pp512 or tg32).
peer_tok_s() { grep -E "\| +$2 +\|" <<<"$1" | awk -F'|' '{print $(NF-1)}' | awk '{print $1}'; }
# The tok/s of strata bench's line starting with $2 (prefill or decode).
strata_tok_s() { grep -E "^$2 +[0-9]" <<<"$1" | awk '{print $2}'; }
# The aggregate tok/s of strata bench's "decode x8" line.
strata_x8() { grep -E '^decode x8 ' <<<"$1" | awk '{print $3}'; }
# S_TG t/s of llama-batched-bench's result row.
peer_x8() { grep -E '^\| +[0-9]' <<<"$1" | tail -1 | awk -F'|' '{print $9}' | tr -d ' '; }
# llama-batched-bench with 8 sequences of 128 prompt and 32 generated tokens; extra flags after $2.
# It runs in $work: ik_llama.cpp's writes llama.log into its working directory.
batched() {
  local bin=$1 f=$2; shift 2
  (cd "$work" && "$bin/llama-batched-bench" -m "$f" -t 2 -c 2048 -b 512 -ub 512 -npp 128 -ntg 32 -npl 8 "$@" 2>&1)
}

uptime
echo "| workload | Strata (avx2 table) | llama.cpp (AVX2) | ik_llama.cpp (AVX2, -rtr 1 -fa 1) |"
echo "| --- | --- | --- | --- |"
# Strata's mkmodel names the Q4_K_M mix q4_k (K-quant types take llama.cpp's _M mix).
for name in q8_0:q8_0 q4_k_m:q4_k; do
  label=${name%%:*}
  f=$work/avx2-tl-$label.gguf
  [ -f "$f" ] || "$strata" mkmodel --preset 1b --type "${name##*:}" -o "$f" >/dev/null
  for _ in $(seq "$runs"); do
    s=$(STRATA_KERNELS=avx2 "$strata" bench -m "$f" --threads 2 --prompt-tokens 512)
    l=$("$llama_bin/llama-bench" -m "$f" -t 2 -p 512 -n 32 -r 1 2>/dev/null)
    k=$("$ik_bin/llama-bench" -m "$f" -t 2 -p 512 -n 32 -r 1 -rtr 1 -fa 1 2>/dev/null)
    echo "| ${label^^} prefill 512 | $(strata_tok_s "$s" prefill) | $(peer_tok_s "$l" pp512) | $(peer_tok_s "$k" pp512) |"
    echo "| ${label^^} decode | $(strata_tok_s "$s" decode) | $(peer_tok_s "$l" tg32) | $(peer_tok_s "$k" tg32) |"
    lb=$(batched "$llama_bin" "$f")
    kb=$(batched "$ik_bin" "$f" -rtr -fa on)
    echo "| ${label^^} 8 sequences decode | $(strata_x8 "$s") | $(peer_x8 "$lb") | $(peer_x8 "$kb") |"
    grep -E '^roofline' <<<"$s" | sed "s/^/  ${label} strata /"
  done
done
uptime
