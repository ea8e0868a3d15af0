#!/usr/bin/env bash
# Dense files side by side: for each generated TinyLlama-1.1B-shaped file (made when missing),
# in one run, `strata bench` on the default kernel table and with STRATA_KERNELS=avx2, then
# llama.cpp's llama-bench (-p 512 -n 32) and llama-batched-bench (8 sequences, S_TG) from a
# native build and from an AVX2-only build. Prints one ready-to-paste markdown table per file.
#   bench/dense_side_by_side.sh [LLAMA_CPP_BIN] [LLAMA_CPP_AVX2_BIN]
# A missing bin dir is built by bench/build_peer.sh (native / avx2) in /tmp.
# env: STRATA (binary; default a copy of build/src/cli/strata, so a rebuild cannot swap it
#      mid-run), FILES (default "q8_0 q4_k_m"; each becomes /tmp/avx2-tl-TYPE.gguf; an entry
#      with a / is a file path used as it is, e.g. a llama-quantize output), WORK_DIR
#      (/tmp), THREADS (2), PEER_ARGS (extra flags for every llama.cpp tool, e.g. "--poll 0" on
#      a machine shared with other work, where the default spin-waiting collapses; say so
#      beside the figures).
# Strata's decode x1 follows its 512-token prompt and its x8 runs 8 sequences in one forward
# pass; llama.cpp's tg32 starts at an empty context and its x8 is llama-batched-bench with
# 8 parallel sequences after 128-token prompts. Keep the machine quiet while it runs:
# llama.cpp's spinning threads collapse when the cores are shared.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
llama_bin=${1:-}
llama_avx2_bin=${2:-}
peer_tools="llama-bench llama-batched-bench"
[ -x "$llama_bin/llama-batched-bench" ] ||
  llama_bin=$(TARGETS=$peer_tools "$root/bench/build_peer.sh" llama.cpp native)
[ -x "$llama_avx2_bin/llama-batched-bench" ] ||
  llama_avx2_bin=$(TARGETS=$peer_tools "$root/bench/build_peer.sh" llama.cpp avx2)
files=${FILES:-q8_0 q4_k_m}
work=${WORK_DIR:-/tmp}
threads=${THREADS:-2}
read -r -a peer_args <<<"${PEER_ARGS:-}"
strata=${STRATA:-}
if [ -z "$strata" ]; then
  strata=$work/dense-side-by-side-strata
  cp "$root/build/src/cli/strata" "$strata"
fi

# The tok/s of strata bench's line starting with $2 (prefill, decode, decode x8).
strata_field() { grep -E "^$2 +[0-9]" <<<"$1" | awk '{print $2}'; }
strata_x8() { grep -E '^decode x8 ' <<<"$1" | awk '{print $3}'; }
strata_roofline() { grep -E '^roofline ' <<<"$1" | awk '{print $2}'; }
# The t/s column of llama-bench's markdown row for test $2 (pp512 or tg32).
peer_tok_s() { grep -E "\| +$2 +\|" <<<"$1" | awk -F'|' '{print $(NF-1)}' | awk '{print $1}'; }
# S_TG t/s of llama-batched-bench's result row.
peer_x8() { grep -E '^\| +[0-9]' <<<"$1" | tail -1 | awk -F'|' '{print $9}' | tr -d ' '; }

strata_row() {
  local label=$1 out=$2
  echo "| $label | $(strata_field "$out" prefill) | $(strata_field "$out" decode) |" \
    "$(strata_x8 "$out") | $(strata_roofline "$out") |"
}
peer_row() {
  local label=$1 bin=$2 file=$3 b bb
  b=$("$bin/llama-bench" -m "$file" -t "$threads" -p 512 -n 32 -r 1 "${peer_args[@]}" 2>/dev/null)
  bb=$("$bin/llama-batched-bench" -m "$file" -t "$threads" -c 2048 -b 512 -ub 512 -npp 128 -ntg 32 \
    -npl 8 "${peer_args[@]}" 2>/dev/null)
  echo "| $label | $(peer_tok_s "$b" pp512) | $(peer_tok_s "$b" tg32) | $(peer_x8 "$bb") | |"
}

echo "uptime before: $(uptime)"
echo "$(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $threads threads; tok/s;" \
  "llama.cpp flags: ${PEER_ARGS:-defaults}"
for type in $files; do
  if [[ $type == */* ]]; then
    file=$type  # a path: an existing file, e.g. one made by llama-quantize
  else
    file=$work/avx2-tl-$type.gguf
    # mkmodel names the Q4_K_M mix q4_k (K-quant types take llama.cpp's _M mix).
    [ -f "$file" ] || "$strata" mkmodel --preset 1b --type "${type%_m}" -o "$file" > /dev/null
  fi
  echo
  echo "$(basename "$file") ($(stat -c %s "$file" | awk '{printf "%.2f GB", $1 / 1e9}')):"
  echo
  echo "| engine | prefill 512 | decode x1 | decode x8 | roofline x1 |"
  echo "| --- | --- | --- | --- | --- |"
  strata_row "Strata (avx512 table)" "$("$strata" bench -m "$file" --threads "$threads")"
  strata_row "Strata (STRATA_KERNELS=avx2)" \
    "$(STRATA_KERNELS=avx2 "$strata" bench -m "$file" --threads "$threads")"
  peer_row "llama.cpp (native build)" "$llama_bin" "$file"
  peer_row "llama.cpp (AVX2-only build)" "$llama_avx2_bin" "$file"
done
echo
echo "uptime after: $(uptime)"
