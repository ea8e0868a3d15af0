#!/usr/bin/env bash
# Long-context attention side by side: `strata bench --context N` (prefill of an N-token prompt,
# then decode at depth N) with the default kernel table and with STRATA_KERNELS=avx2, beside
# llama.cpp's llama-bench with flash attention (-fa 1) and, when IK_BIN is set, ik_llama.cpp's
# (-rtr 1 -fa 1), on the same generated 1.1B Q8_0 file, in one run. Prints one markdown table:
#   | context N | engine | prefill of N tokens | decode at depth N |
# The peers are built outside this tree (bench/build_peer.sh); pass llama.cpp's bin directory, or
# "" (or a missing directory) to have build_peer.sh build it (native) in /tmp.
# Keep the machine quiet while it runs.
#   bench/long_context_side_by_side.sh [/tmp/llama.cpp/build/bin] [contexts, default "512 2048 4096"] [kv type, default f16]
# env: IK_BIN (ik_llama.cpp's bin dir: its rows too), TABLES (Strata's kernel tables, default
#      "default avx2"), STRATA (binary), MODEL (file; default the generated 1.1B Q8_0 file
#      /tmp/avx2-tl-q8_0.gguf, made when missing), WORK_DIR (/tmp), THREADS (2), PEER_ARGS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
contexts=${2:-512 2048 4096}
kv=${3:-f16}
tables=${TABLES:-default avx2}
work=$(cd "${WORK_DIR:-/tmp}" && pwd)
threads=${THREADS:-2}
read -r -a peer_args <<<"${PEER_ARGS:-}"
# shellcheck source=bench/peer_rows.sh
source "$root/bench/peer_rows.sh"
peer_tools="llama-bench llama-batched-bench"
llama_bin=$(peer_bin "${1:-}" llama.cpp native "$peer_tools")
ik_bin=${IK_BIN:-}
[ -z "$ik_bin" ] || ik_bin=$(peer_bin "$ik_bin" ik_llama.cpp avx2 llama-bench)
strata=${STRATA:-$root/build/src/cli/strata}
model=${MODEL:-$work/avx2-tl-q8_0.gguf}
[ -f "$model" ] || "$strata" mkmodel --preset 1b --type q8_0 -o "$model" >/dev/null

# "native build" or "AVX2-only build" for a bin dir build_peer.sh made, else the dir itself.
build_of() {
  case "$1" in */build-avx2/bin) echo "AVX2-only build" ;; */build/bin) echo "native build" ;; *) echo "$1" ;; esac
}

echo "uptime before: $(uptime)"
echo "$(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $threads threads; $(basename "$model"), K/V $kv; tok/s"
echo
echo "| context N | engine | prefill of N tokens | decode at depth N |"
echo "| --- | --- | --- | --- |"
for n in $contexts; do
  for table in $tables; do
    if [ "$table" = default ]; then strata_context_row "$n" "$model" "$kv"
    else strata_context_row "$n" "$model" "$kv" "STRATA_KERNELS=$table"; fi
  done
  llama_context_row "$n" "llama.cpp ($(build_of "$llama_bin"), -fa 1)" "$llama_bin" "$model" "$kv"
  [ -z "$ik_bin" ] ||
    ik_context_row "$n" "ik_llama.cpp ($(build_of "$ik_bin"), -rtr 1 -fa 1)" "$ik_bin" "$model" "$kv"
done
echo
echo "uptime after: $(uptime)"
