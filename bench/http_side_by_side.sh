#!/usr/bin/env bash
# HTTP side by side (issue 13's serving row): `strata serve` (avx512 table, and the AVX2 table
# with STRATA_KERNELS=avx2) against llama.cpp's llama-server (native build, and an AVX2-only
# build to match), each started in turn on the same file with 8 slots and 2 threads, driven by
# the same client (bench/http_load.mjs: streaming /v1/completions, MAX_NEW tokens each with
# ignore_eos, every prompt opening with a run id so nothing is answered from a cache). One
# warm-up request per server is not counted. Prints a ready-to-paste markdown table (total
# tok/s per concurrency level, median time to first token at the highest level) and, per file,
# Strata's ratio to the llama.cpp build of the same table at the highest level. The optional
# ik-avx2 row is ik_llama.cpp's llama-server (AVX2-only build, `-rtr -fa`: run-time repacking
# and flash attention, its fastest CPU settings), the fastest CPU fork issue 13 measures against.
#   bench/http_side_by_side.sh [LLAMA_CPP_BIN] [LLAMA_CPP_AVX2_BIN] [IK_LLAMA_CPP_AVX2_BIN]
# A missing bin dir is built by bench/build_peer.sh (native / avx2) in /tmp.
# env: STRATA (binary; default a copy of build/src/cli/strata, so a rebuild cannot swap it
#      mid-run), MODELS (default /tmp/avx2-tl-q8_0.gguf /tmp/avx2-tl-q4_k_m.gguf: generated
#      1.1B files, made when missing), CONCURRENCY (1,2,4,8), MAX_NEW (64), PARALLEL (8),
#      THREADS (2), CTX (tokens per slot, 512), SERVERS (which rows, in order; default
#      "strata llama strata-avx2 llama-avx2"; add ik-avx2 for ik_llama.cpp's server, and
#      strata-avx2vnni for the AVX2 + AVX-VNNI table on a CPU that has it; a subset reruns only
#      those), PORT (18471),
#      LOG_DIR (/tmp/http-side-by-side),
#      PEER_ARGS (extra llama-server flags, e.g. "--poll 0" on a machine shared with other work,
#      where the default spin-waiting collapses; say so beside the figures).
# Keep the machine quiet while it runs: llama.cpp's spinning threads collapse when the cores
# are shared. Needs node (>= 18) and curl.
set -euo pipefail
shopt -s inherit_errexit  # a failed measurement inside $(...) stops the script
root=$(cd "$(dirname "$0")/.." && pwd)
llama_bin=${1:-}
llama_avx2_bin=${2:-}
ik_avx2_bin=${3:-}
servers=${SERVERS:-strata llama strata-avx2 llama-avx2}
for server in $servers; do
  case "$server" in
    strata | strata-avx2 | strata-avx2vnni) ;;
    llama) [ -x "$llama_bin/llama-server" ] ||
      llama_bin=$(TARGETS=llama-server "$root/bench/build_peer.sh" llama.cpp native) ;;
    llama-avx2) [ -x "$llama_avx2_bin/llama-server" ] ||
      llama_avx2_bin=$(TARGETS=llama-server "$root/bench/build_peer.sh" llama.cpp avx2) ;;
    ik-avx2) [ -x "$ik_avx2_bin/llama-server" ] ||
      ik_avx2_bin=$(TARGETS=llama-server "$root/bench/build_peer.sh" ik_llama.cpp avx2) ;;
    *) echo "http_side_by_side: unknown server '$server' in SERVERS (known: strata llama strata-avx2" \
      "strata-avx2vnni llama-avx2 ik-avx2)" >&2; exit 2 ;;
  esac
done
models=${MODELS:-/tmp/avx2-tl-q8_0.gguf /tmp/avx2-tl-q4_k_m.gguf}
levels=${CONCURRENCY:-1,2,4,8}
max_new=${MAX_NEW:-64}
parallel=${PARALLEL:-8}
threads=${THREADS:-2}
ctx=${CTX:-512}
read -r -a peer_args <<<"${PEER_ARGS:-}"
port=${PORT:-18471}
log_dir=${LOG_DIR:-/tmp/http-side-by-side}
mkdir -p "$log_dir"
strata=${STRATA:-}
if [ -z "$strata" ]; then
  strata=$log_dir/strata
  cp "$root/build/src/cli/strata" "$strata"
fi
url=http://127.0.0.1:$port
server_pid=

stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
  fi
}
trap stop_server EXIT

# Starts "$@" in the background (its log in $log_dir/$label.log) and waits for /health.
start_server() {
  local label=$1; shift
  "$@" > "$log_dir/$label.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 600); do
    curl -sf "$url/health" > /dev/null 2>&1 && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.5
  done
  echo "http_side_by_side: $label did not become ready; see $log_dir/$label.log" >&2
  stop_server
  exit 1
}

# One markdown row from http_load's --json output: total tok/s per level, TTFT median at the last.
row() {
  node -e '
    const r = JSON.parse(require("fs").readFileSync(0, "utf8")).runs;
    const cells = r.map((x) => x.total_tok_s.toFixed(1));
    console.log(`| ${process.argv[1]} | ${process.argv[2]} | ${cells.join(" | ")} | ` +
      `${r[r.length - 1].ttft_median_s.toFixed(2)} s |`);' "$1" "$2"
}

# The total tok/s at the highest level, from a row printed by row().
last_level() { awk -F'|' '{print $(NF-2)}' <<<"$1" | tr -d ' '; }

# Measures one server: start, warm up, run the client, stop. Prints its row.
measure() {
  local file=$1 label=$2; shift 2
  trap stop_server EXIT  # this runs in a command substitution, which does not inherit traps
  start_server "$label" "$@"
  node "$root/bench/http_load.mjs" --url "$url" --concurrency 1 --max-new 8 > /dev/null
  node "$root/bench/http_load.mjs" --url "$url" --concurrency "$levels" --max-new "$max_new" --json |
    row "$(basename "$file")" "$label"
  stop_server
}

# Measures one of $servers on a file; prints its row.
measure_server() {
  local file=$1 server=$2
  local strata_args=(serve -m "$file" --port "$port" --parallel "$parallel" --threads "$threads" --ctx "$ctx")
  local llama_args=(-m "$file" --port "$port" -np "$parallel" -t "$threads" -c $((ctx * parallel))
    "${peer_args[@]}")
  case "$server" in
    strata) measure "$file" "strata serve (avx512 table)" "$strata" "${strata_args[@]}" ;;
    llama) measure "$file" "llama-server (native build)" "$llama_bin/llama-server" "${llama_args[@]}" ;;
    strata-avx2 | strata-avx2vnni) measure "$file" "strata serve (STRATA_KERNELS=${server#strata-})" \
      env STRATA_KERNELS="${server#strata-}" "$strata" "${strata_args[@]}" ;;
    llama-avx2) measure "$file" "llama-server (AVX2-only build)" "$llama_avx2_bin/llama-server" "${llama_args[@]}" ;;
    # Run from the log dir: ik_llama.cpp's server writes llama.log into its working directory.
    ik-avx2) llama_args[1]=$(realpath "$file")
      measure "$file" "ik_llama.cpp llama-server (AVX2-only, -rtr -fa)" env -C "$log_dir" \
        "$(realpath "$ik_avx2_bin")/llama-server" "${llama_args[@]}" -rtr -fa on ;;
  esac
}

# Strata / llama.cpp at the highest level from two rows; nothing when either was not run.
ratio() {
  if [ -n "$1" ] && [ -n "$2" ]; then
    awk -v a="$(last_level "$1")" -v b="$(last_level "$2")" 'BEGIN {printf "%.2f", a / b}'
  fi
}

echo "uptime before: $(uptime)"
echo "$(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; $threads threads, $parallel slots," \
  "$max_new new tokens per request, $ctx-token context per slot; llama-server flags: ${PEER_ARGS:-defaults}"
echo
header="| file | server |" rule="| --- | --- |"
for n in ${levels//,/ }; do header+=" $n concurrent |" rule+=" --- |"; done
echo "$header TTFT median at ${levels##*,} |"
echo "$rule --- |"
ratios=()
for file in $models; do
  if [ ! -f "$file" ]; then
    type=q8_0
    case "$file" in *q4_k*) type=q4_k ;; esac
    "$strata" mkmodel --preset 1b --type "$type" -o "$file" > /dev/null
  fi
  declare -A rows=()
  for server in $servers; do
    rows[$server]=$(measure_server "$file" "$server")
    echo "${rows[$server]}"
  done
  r=$(ratio "${rows[strata]:-}" "${rows[llama]:-}")
  r2=$(ratio "${rows[strata-avx2]:-}" "${rows[llama-avx2]:-}")
  line="$(basename "$file"), ${levels##*,} concurrent, Strata / llama.cpp: ${r:-not run} (avx512 table /"
  r3=$(ratio "${rows[strata-avx2]:-}" "${rows[ik-avx2]:-}")
  line+=" native build), ${r2:-not run} (avx2 table / AVX2-only build), ${r3:-not run} (avx2 table"
  ratios+=("$line / ik_llama.cpp AVX2-only build)")
  unset rows
done
echo
for r in "${ratios[@]}"; do echo "$r"; done
echo "uptime after: $(uptime)"
