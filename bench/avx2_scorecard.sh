#!/usr/bin/env bash
# Issue 13's table in one run: every row of it for Strata's AVX2 kernel table
# (STRATA_KERNELS=avx2), llama.cpp (February 2025) built AVX2-only and ik_llama.cpp built AVX2-only
# with run-time repacking and flash attention, on the same generated TinyLlama-1.1B-shaped files,
# 2 threads, then Strata / ik_llama.cpp per row and whether the issue's goal holds: at least
# ik_llama.cpp on every row, and over HTTP at 8 concurrent at least 2x llama.cpp's server.
# Each row is measured the way the other side-by-side scripts measure it (bench/peer_rows.sh,
# bench/http_side_by_side.sh). Run it on an AVX2-only CPU for the issue's figure: on a CPU with
# AVX-512 the AVX2 table still runs, but the peers' AVX2 builds and the memory system are not an
# AVX2-only machine's, and the script says so.
#   bench/avx2_scorecard.sh [LLAMA_CPP_AVX2_BIN] [IK_LLAMA_CPP_AVX2_BIN]
# A missing bin dir (or "") is built by bench/build_peer.sh in /tmp (llama-bench,
# llama-batched-bench, llama-server).
# env: CONTEXT (the long prompt, default 3700 tokens as in the issue), STRATA (binary; default a
#      copy of build/src/cli/strata), WORK_DIR (/tmp: the files /tmp/avx2-tl-q8_0.gguf and
#      /tmp/avx2-tl-q4_k_m.gguf, made when missing), THREADS (2), PEER_ARGS, REPEATS (3: how
#      many times the engines take turns on the file and long-context rows; each cell is the
#      median of its runs, as a cloud VM's speed moves by a fifth between minutes), TABLE (avx2:
#      Strata's kernel table, STRATA_KERNELS=TABLE; avx2vnni scores the AVX2 + AVX-VNNI table
#      that Intel's client CPUs since Alder Lake get, on a CPU with AVX-VNNI).
# Keep the machine quiet while it runs (about 30 minutes at 3 repeats): the peers' spinning
# thread pools collapse when the cores are shared. The raw rows go to WORK_DIR/avx2-scorecard.log.
set -euo pipefail
shopt -s inherit_errexit
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(cd "${WORK_DIR:-/tmp}" && pwd)
threads=${THREADS:-2}
context=${CONTEXT:-3700}
repeats=${REPEATS:-3}
read -r -a peer_args <<<"${PEER_ARGS:-}"
table=${TABLE:-avx2}
case "$table" in
  avx2) ;;
  # STRATA_KERNELS=avx2vnni on a CPU without AVX-VNNI would run the AVX2 table under this name.
  avx2vnni) grep -qw avx_vnni /proc/cpuinfo ||
    { echo "avx2_scorecard: TABLE=avx2vnni needs a CPU with AVX-VNNI (no avx_vnni in /proc/cpuinfo)" >&2; exit 2; } ;;
  *) echo "avx2_scorecard: TABLE must be avx2 or avx2vnni, not '$table'" >&2; exit 2 ;;
esac
# shellcheck source=bench/peer_rows.sh
source "$root/bench/peer_rows.sh"
check_repeats "$repeats"
tools="llama-bench llama-batched-bench llama-server"
llama_bin=$(peer_bin "${1:-}" llama.cpp avx2 "$tools")
ik_bin=$(peer_bin "${2:-}" ik_llama.cpp avx2 "$tools")
strata=${STRATA:-}
if [ -z "$strata" ]; then
  strata=$work/avx2-scorecard-strata
  cp "$root/build/src/cli/strata" "$strata"
fi
q8=$work/avx2-tl-q8_0.gguf
q4=$work/avx2-tl-q4_k_m.gguf
[ -f "$q8" ] || "$strata" mkmodel --preset 1b --type q8_0 -o "$q8" >/dev/null
[ -f "$q4" ] || "$strata" mkmodel --preset 1b --type q4_k -o "$q4" >/dev/null
log=$work/avx2-scorecard.log
llama_label="llama.cpp (AVX2-only build)"
ik_label="ik_llama.cpp (AVX2-only build, -rtr 1 -fa 1)"

# The three engines' figures, by workload key: strata[k], llama[k], ik[k]: each run's value
# appended (space-separated), then the median of them.
declare -A strata_fig=() llama_fig=() ik_fig=()
# Appends the three engines' rows ($3 Strata, $4 llama.cpp, $5 ik_llama.cpp) to their figures:
# column $2 + i of each row under key ${1}_PART for the i-th of the parts $6....
add_figs() {
  local prefix=$1 c=$2 s=$3 l=$4 k=$5 part
  shift 5
  for part in "$@"; do
    strata_fig[${prefix}_$part]+=" $(cell "$s" "$c")"
    llama_fig[${prefix}_$part]+=" $(cell "$l" "$c")"
    ik_fig[${prefix}_$part]+=" $(cell "$k" "$c")"
    c=$((c + 1))
  done
}
# Replaces every entry of array $1 by the median of its runs.
to_medians() {
  local -n figs=$1
  local key
  for key in "${!figs[@]}"; do figs["$key"]=$(median "${figs[$key]}"); done
}

# Prefill 512, decode x1 and decode x8 of one file, under keys KEY_prefill, KEY_decode, KEY_x8.
measure_file() {
  local key=$1 file=$2 s l k
  s=$(strata_row "$file" STRATA_KERNELS="$table")
  l=$(peer_row "$llama_label" "$llama_bin" "$file")
  k=$(ik_row "$ik_label" "$ik_bin" "$file")
  printf '%s\n' "$s" "$l" "$k" >>"$log"
  add_figs "$key" 2 "$s" "$l" "$k" prefill decode x8
}

# Prefill of the CONTEXT-token prompt and decode at that depth (Q8_0, f16 K/V).
measure_context() {
  local s l k
  s=$(strata_context_row "$context" "$q8" f16 STRATA_KERNELS="$table")
  l=$(llama_context_row "$context" "$llama_label" "$llama_bin" "$q8" f16)
  k=$(ik_context_row "$context" "$ik_label" "$ik_bin" "$q8" f16)
  printf '%s\n' "$s" "$l" "$k" >>"$log"
  add_figs ctx 3 "$s" "$l" "$k" prefill decode
}

# Total tok/s over HTTP, 8 slots, 8 concurrent streams of 64 tokens (Q8_0).
measure_http() {
  local out
  out=$(SERVERS="strata-$table llama-avx2 ik-avx2" MODELS=$q8 CONCURRENCY=8 MAX_NEW=64 STRATA=$strata \
    THREADS=$threads "$root/bench/http_side_by_side.sh" "" "$llama_bin" "$ik_bin") ||
    echo "avx2_scorecard: the HTTP measurement stopped; its rows are blank (logs in /tmp/http-side-by-side)" >&2
  echo "$out" >>"$log"
  strata_fig[http]=$(cell "$(grep -F "| strata serve (STRATA_KERNELS=$table) |" <<<"$out" || true)" 3)
  llama_fig[http]=$(cell "$(grep -F '| llama-server (AVX2-only build) |' <<<"$out" || true)" 3)
  ik_fig[http]=$(cell "$(grep -F '| ik_llama.cpp llama-server' <<<"$out" || true)" 3)
}

# a / b to two decimals, or "-" when either is not a number.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-" }'; }
# 1 when ratio $1 is at least $2.
at_least() { awk -v r="$1" -v g="$2" 'BEGIN { print (r != "-" && r + 0 >= g) ? 1 : 0 }'; }

rows_met=0 rows=0
# One table row: label, key; counts whether Strata is at least ik_llama.cpp.
row() {
  local r
  r=$(ratio "${strata_fig[$2]}" "${ik_fig[$2]}")
  rows=$((rows + 1)) rows_met=$((rows_met + $(at_least "$r" 1)))
  echo "| $1 | ${strata_fig[$2]} | ${llama_fig[$2]} | ${ik_fig[$2]} | $r |"
}

: >"$log"
echo "uptime before: $(uptime)"
cpu=$(lscpu | sed -n 's/^Model name: *//p')
echo "$cpu, $(nproc) cores, $threads threads; $(date -u '+%Y-%m-%d %H:%M') UTC"
if grep -qw avx512f /proc/cpuinfo; then
  echo "note: this CPU has AVX-512; the issue's figure needs an AVX2-only CPU (these are STRATA_KERNELS=$table on it)"
fi
for ((run = 1; run <= repeats; run++)); do
  echo "run $run of $repeats" >>"$log"
  measure_file q8 "$q8"
  measure_file q4 "$q4"
  measure_context
done
# Each cell becomes the median of its runs (the HTTP row runs once).
for figs in strata_fig llama_fig ik_fig; do to_medians "$figs"; done
measure_http
echo
echo "| workload | Strata ($table table) | $llama_label | $ik_label | Strata / ik_llama.cpp |"
echo "| --- | --- | --- | --- | --- |"
row "Q8_0 prefill 512" q8_prefill
row "Q8_0 decode" q8_decode
row "Q4_K_M prefill 512" q4_prefill
row "Q4_K_M decode" q4_decode
row "Q8_0, $context-token prompt" ctx_prefill
row "Q8_0 decode at $context depth" ctx_decode
row "8 sequences decode, Q8_0" q8_x8
row "8 sequences decode, Q4_K_M" q4_x8
row "HTTP, --parallel 8, 8 concurrent, 64 tokens (Q8_0)" http
http_vs_llama=$(ratio "${strata_fig[http]}" "${llama_fig[http]}")
echo
echo "Each cell but HTTP's is the median of $repeats alternating runs (every run in $log)."
echo "Strata at least ik_llama.cpp on $rows_met of $rows rows; HTTP at 8 concurrent, Strata / llama.cpp:" \
  "$http_vs_llama (goal 2.00)."
if [ "$rows_met" -eq "$rows" ] && [ "$(at_least "$http_vs_llama" 2)" = 1 ]; then echo "goal: met"; else
  echo "goal: not met"; fi
echo "uptime after: $(uptime)"
