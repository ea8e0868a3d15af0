#!/usr/bin/env bash
# Runs the tests of a STRATA_SANITIZE build dir (what `make test-sanitize` builds):
#   1. each GoogleTest binary named (all of them when none or "all" is named; the build writes
#      their list to gtest_binaries.txt) once, JOBS at a time, longest first. ctest would start one
#      process per case, and under ASan a process start and a suite's setup (a model load, a
#      vocabulary) cost more than most cases;
#   2. for "all" only, ctest for every other test: the e2e scripts and real clients against the
#      sanitized `strata`, the whole-model checks again on the avx2 table. Not the fuzzers (they
#      build their own clang trees in `make test`) nor the container image (it only packages).
# Sanitizers do not recover and leaks are checked. Every report, from a test binary or from a
# `strata` an e2e test started, is written under BUILD/sanitize-logs/ and fails the run.
# Usage: scripts/test-sanitized.sh BUILD_DIR JOBS [all | TEST_BINARY_NAME...]
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR JOBS [all | TEST_BINARY_NAME...]}" && pwd)
jobs=${2:-$(nproc)}
shift 2 || true
list="$build/gtest_binaries.txt"
[[ -f "$list" ]] || { echo "test-sanitized: $list is missing (configure $build first)" >&2; exit 2; }
logs="$build/sanitize-logs"
rm -rf "$logs" && mkdir -p "$logs"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:log_path=$logs/report"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/report"

everything=1
wanted="$logs/wanted.txt"
if [[ $# -gt 0 && "$*" != all ]]; then
  everything=0
  for name in "$@"; do
    grep -x ".*/$name" "$list" || { echo "test-sanitized: no test binary '$name' in $list" >&2; exit 2; }
  done >"$wanted"
else
  cp "$list" "$wanted"
fi

run_one() {
  local bin=$1 log="$2/$(basename "$1").log" start=$SECONDS rc=0
  (cd "$(dirname "$bin")" && timeout 1200 "$bin" --gtest_brief=1) >"$log" 2>&1 || rc=$?
  echo "sanitize: $(basename "$bin") rc=$rc $((SECONDS - start)) s"
  if [[ $rc -ne 0 ]]; then tail -n 40 "$log"; return 1; fi
}
export -f run_one

reports() {
  local found
  found=$(grep -l -E 'ERROR: [A-Za-z]+Sanitizer|runtime error:|SUMMARY: [A-Za-z]+Sanitizer' "$logs"/report.* 2>/dev/null || true)
  if [[ -n "$found" ]]; then
    cat $found
    echo "test-sanitized: sanitizer reports above ($(echo $found))" >&2
    exit 1
  fi
}

# Longest first: the order of the last run's durations where there is one, else by size.
order="$build/sanitize-order.txt"
if [[ -f "$order" ]]; then bins=$(grep -Fxf "$wanted" "$order" || true; grep -Fxvf "$order" "$wanted" || true)
else bins=$(xargs ls -S <"$wanted"); fi
status=0
printf '%s\n' $bins | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {} "$logs" | tee "$logs/summary.txt" ||
  status=1
grep '^sanitize: ' "$logs/summary.txt" | sort -k4 -n -r | awk '{print $2}' |
  while read -r name; do grep -x ".*/$name" "$list"; done >"$order" || true
reports
if [[ $status -ne 0 ]]; then
  echo "test-sanitized: failed: $(grep '^sanitize: ' "$logs/summary.txt" | grep -v ' rc=0 ' | awk '{print $2}' | tr '\n' ' ')" >&2
  exit 1
fi

if [[ $everything -eq 1 ]]; then
  status=0
  ctest --test-dir "$build" --output-on-failure -j "$jobs" -LE 'unit|fuzz' -E '^container_image_smoke$' || status=1
  reports
  exit $status
fi
