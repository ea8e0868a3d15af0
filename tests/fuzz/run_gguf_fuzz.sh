#!/usr/bin/env bash
# Builds the GGUF reader's libFuzzer target with clang (ASan + UBSan) in its own build dir
# and fuzzes it for a bounded time, seeded with ../shared's models and vocabs (copied to a
# temp dir, never into the repo) plus small generated files. Fails on any finding; the
# crashing input is kept in BUILD_DIR/findings/.
# Usage: run_gguf_fuzz.sh SOURCE_DIR BUILD_DIR [SECONDS]   (exit 77 = skipped: no clang)
set -euo pipefail
src=$(cd "$1" && pwd)
build=$2
seconds=${3:-30}

cxx=$(command -v clang++-14 || command -v clang++ || true)
if [ -z "$cxx" ]; then
  echo "gguf fuzz: skipped, no clang++ (install clang and libclang-rt-14-dev)"
  exit 77
fi

cmake -S "$src/tests/fuzz" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE= >/dev/null
ninja -C "$build" -j 2 gguf_fuzz gguf_fuzz_seeds >/dev/null

corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
"$build/gguf_fuzz_seeds" "$corpus"
for f in "$src"/../shared/models/*.gguf "$src"/../shared/vocab/*.gguf; do
  [ -f "$f" ] && cp "$f" "$corpus/"
done
mkdir -p "$build/findings"

# Inputs are capped at 64 KiB: the big seeds' headers and tensor tables fit, and parsing
# stays fast enough for many thousands of runs.
set +e
"$build/gguf_fuzz" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$build/findings/" "$corpus" >"$build/fuzz.log" 2>&1
status=$?
set -e
grep -v '^"' "$build/fuzz.log" | tail -n 40
if [ "$status" != 0 ]; then
  echo "gguf fuzz: FAILED (exit $status); reproduce with: $build/gguf_fuzz $build/findings/<file>"
  exit 1
fi
echo "gguf fuzz: no findings in ${seconds}s"
