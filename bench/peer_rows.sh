# shellcheck shell=bash disable=SC2154,SC2015  # the callers set the globals named below; "|| true" keeps a failed peer run a blank cell
# Sourced by the side-by-side scripts (side_by_side.sh, long_context_side_by_side.sh,
# avx2_scorecard.sh): how each engine runs a workload and how its output is read, so that every
# script measures a workload the same way. Each *_row function prints one markdown row.
# The caller sets: root (the repository), strata (the strata binary), threads, work (an absolute
# directory the peers run in: ik_llama.cpp's tools write llama.log into their working directory)
# and the array peer_args (extra flags for every peer tool).

# The bin dir of a peer: the one given when it holds all of TOOLS, else one bench/build_peer.sh
# builds in /tmp.
#   peer_bin GIVEN llama.cpp|ik_llama.cpp native|avx2 "TOOLS"
peer_bin() {
  local given=$1 peer=$2 flavor=$3 tools=$4 t
  for t in $tools; do
    [ -x "$given/$t" ] || { TARGETS=$tools "$root/bench/build_peer.sh" "$peer" "$flavor"; return; }
  done
  (cd "$given" && pwd)
}

# The tok/s of strata bench's line starting with $2 (prefill or decode).
strata_tok_s() { grep -E "^$2 +[0-9]" <<<"$1" | awk '{print $2}'; }
# The aggregate tok/s of strata bench's "decode x8" line.
strata_x8() { grep -E '^decode x8 ' <<<"$1" | awk '{print $3}'; }
# The single-sequence roofline: on the active bytes for a MoE file, on all weights otherwise
# ("|| true": a dense file has no experts line, and the callers' pipefail would blank the cell).
strata_roofline() {
  local moe
  moe=$(grep -E '^experts x1 ' <<<"$1" | sed -E 's/.*roofline ([0-9.]+).*/\1/' || true)
  if [ -n "$moe" ]; then echo "$moe (active bytes)"; else grep -E '^roofline ' <<<"$1" | awk '{print $2}'; fi
}
# "Strata (TABLE table[, ENV...])" for strata bench's output $1 (its "machine" line names the
# kernel table that ran); $2... are the environment settings it ran with.
strata_label() {
  local out=$1 table; shift
  table=$(grep -E '^machine ' <<<"$out" | sed -E 's/.*, ([a-z0-9]+) kernels,.*/\1/')
  if [ $# -gt 0 ]; then echo "Strata ($table table, $*)"; else echo "Strata ($table table)"; fi
}
# The t/s column (the last one) of llama-bench's markdown row for test $2 (pp512, tg32, or
# ik_llama.cpp's tg16@pp4096).
peer_tok_s() {
  local v
  v=$(grep -E "\| +$2 +\|" <<<"$1" | awk -F'|' '{print $(NF-1)}' | awk '{print $1}')
  echo "${v:-no load}"
}
# S_TG t/s of llama-batched-bench's last result row.
peer_s_tg() { grep -E '^\| +[0-9]' <<<"$1" | tail -1 | awk -F'|' '{print $9}' | tr -d ' '; }

# Prefill of a 512-token prompt, decode of one sequence and of 8 in one window:
#   | label | prefill 512 | decode x1 | decode x8 | roofline x1 |
# Strata's row; $2... are environment settings (STRATA_KERNELS=avx2). Each decode figure at the
# peers' depth (strata bench --decode-depth): x1 from an empty context, as llama-bench's tg32;
# x8 from depth 128, as llama-batched-bench's S_TG after its 128-token prompts.
strata_row() {
  local file=$1 out one; shift
  out=$(env "$@" "$strata" bench -m "$file" --threads "$threads" --prompt-tokens 512 --decode-depth 128)
  one=$(env "$@" "$strata" bench -m "$file" --threads "$threads" --context 32 --decode-depth 0 --decode-steps 32)
  echo "| $(strata_label "$out" "$@") | $(strata_tok_s "$out" prefill) | $(strata_tok_s "$one" decode) |" \
    "$(strata_x8 "$out") | $(strata_roofline "$one") |"
}
# A peer's row: llama-bench pp512 and tg32 (from an empty context), llama-batched-bench -npl 8
# (S_TG after 128-token prompts). $4 and $5 are extra flags for its llama-bench and its
# llama-batched-bench (ik_llama.cpp spells them differently: "-rtr 1" and "-rtr").
peer_row() {
  local label=$1 bin=$2 file=$3 b bb bench_flags batched_flags
  read -r -a bench_flags <<<"${4:-}"
  read -r -a batched_flags <<<"${5:-}"
  b=$(cd "$work" && "$bin/llama-bench" -m "$file" -t "$threads" -p 512 -n 32 -r 1 "${bench_flags[@]}" \
    "${peer_args[@]}" 2>/dev/null || true)
  bb=$(cd "$work" && "$bin/llama-batched-bench" -m "$file" -t "$threads" -c 2048 -b 512 -ub 512 -npp 128 \
    -ntg 32 -npl 8 "${batched_flags[@]}" "${peer_args[@]}" 2>&1 || true)
  echo "| $label | $(peer_tok_s "$b" pp512) | $(peer_tok_s "$b" tg32) | $(peer_s_tg "$bb") | |"
}
# ik_llama.cpp's row (peer_row) with its run-time repacking and flash attention, as its
# llama-bench and its llama-batched-bench spell them.
ik_row() { peer_row "$1" "$2" "$3" "-rtr 1 -fa 1" "-rtr -fa on"; }

# Prefill of an N-token prompt and decode at depth N, K/V of type KV (f16, q8_0):
#   | N | label | prefill of N tokens | decode at depth N |
# Strata: strata bench --context N (16 decode steps after the prompt); $4... are environment
# settings.
strata_context_row() {
  local n=$1 file=$2 kv=$3 out; shift 3
  out=$(env "$@" "$strata" bench -m "$file" --threads "$threads" --context "$n" --kv-type "$kv" --decode-steps 16)
  echo "| $n | $(strata_label "$out" "$@") | $(strata_tok_s "$out" prefill) | $(strata_tok_s "$out" decode) |"
}
# llama.cpp (February 2025) with flash attention: llama-bench for the prompt; that version has no
# depth option, so decode at depth N is llama-batched-bench's S_TG of one sequence, 16 tokens
# after an N-token prompt.
llama_context_row() {
  local n=$1 label=$2 bin=$3 file=$4 kv=$5 b bb
  b=$(cd "$work" && "$bin/llama-bench" -m "$file" -t "$threads" -fa 1 -ctk "$kv" -ctv "$kv" -p "$n" -n 0 -r 1 \
    "${peer_args[@]}" 2>/dev/null || true)
  bb=$(cd "$work" && "$bin/llama-batched-bench" -m "$file" -t "$threads" -fa -ctk "$kv" -ctv "$kv" -c $((n + 64)) \
    -b 2048 -ub 512 -npp "$n" -ntg 16 -npl 1 "${peer_args[@]}" 2>&1 || true)
  echo "| $n | $label | $(peer_tok_s "$b" "pp$n") | $(peer_s_tg "$bb") |"
}
# ik_llama.cpp with run-time repacking and flash attention: its llama-bench measures both, the
# prompt (pp N) and 16 tokens generated at depth N (-gp N,16: tg16@ppN).
ik_context_row() {
  local n=$1 label=$2 bin=$3 file=$4 kv=$5 b
  b=$(cd "$work" && "$bin/llama-bench" -m "$file" -t "$threads" -rtr 1 -fa 1 -ctk "$kv" -ctv "$kv" -p "$n" -n 0 \
    -gp "$n,16" -r 1 "${peer_args[@]}" 2>/dev/null || true)
  echo "| $n | $label | $(peer_tok_s "$b" "pp$n") | $(peer_tok_s "$b" "tg16@pp$n") |"
}

# Cell $2 (1-based, after the opening |) of markdown row $1, without its padding.
cell() { awk -F'|' -v c="$2" '{gsub(/^ +| +$/, "", $(c + 1)); print $(c + 1)}' <<<"$1"; }

# Exits with a message naming REPEATS unless $1 is a whole number from 1 up.
check_repeats() {
  [[ $1 =~ ^[1-9][0-9]*$ ]] || { echo "REPEATS must be a whole number from 1 up (got '$1')" >&2; exit 2; }
}

# The median of the numbers in $1 (blank cells skipped; "-" when none).
median() {
  tr ' ' '\n' <<<"$1" | { grep -E '^[0-9]+([.][0-9]+)?$' || true; } | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
                              else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# One markdown row of the per-cell medians of the rows in $1 (one per line, the same engine's
# runs): each cell's leading number is the median of the runs', followed by the first run's
# words after it ("(active bytes)"); a cell no run has a number in ("no load") stays the first
# run's. The label is the first run's.
median_row() {
  local rows=$1 first n c v rest out
  first=$(head -1 <<<"$rows")
  n=$(awk -F'|' '{print NF - 2}' <<<"$first")
  out="| $(cell "$first" 1) |"
  for ((c = 2; c <= n; c++)); do
    v=$(median "$(while read -r r; do cell "$r" "$c" | awk '{print $1}'; done <<<"$rows" | tr '\n' ' ')")
    rest=$(cell "$first" "$c" | cut -s -d' ' -f2-)
    if [ "$v" = - ]; then out+=" $(cell "$first" "$c") |"; else out+=" $v${rest:+ $rest} |"; fi
  done
  echo "$out"
}
