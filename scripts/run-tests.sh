#!/usr/bin/env bash
# Runs the test suite of a build dir: what `make test` and `make test-sanitize` call.
#   - each GoogleTest binary once (the build lists them in gtest_binaries.txt). ctest registers
#     every case as a test of its own (`ctest -R` picks cases while working), but a process start
#     and a suite's setup (a model load, a vocabulary) cost more than most cases, so the suite runs
#     binaries whole;
#   - every other ctest test: e2e scripts and the real clients against `strata`, the fuzzers, the
#     whole-model checks again on the avx2 table, the deployment kit.
# All in one pool of JOBS, longest first: the durations of the last run (BUILD/test-order.txt),
# else the ctest tests first (the long ones), then the binaries by size.
# --sanitized (a STRATA_SANITIZE build dir): sanitizers do not recover, leaks are checked, and every
# report, from a test binary or from a `strata` an e2e test started, is written under
# BUILD/sanitize-logs/ and fails the run. Not rerun there: the fuzzers (clang trees of their own,
# already sanitized), the container image (it packages the binary), the checks of static files
# (label "static": they run no Strata code), the whole-model checks' second run on the avx2
# table (model_*_avx2_table: that rerun is for the table's bits, which the Release run checks;
# kernels_test and kernels_matmul_test run every table the CPU has under the sanitizers) and the
# runs on emulated CPUs (label "emulated": they check instruction sets, not memory). And some
# binaries run a part of their cases there (sanitized_filter in scripts/test-filters.sh).
# Naming binaries runs only those binaries; "binaries" runs every GoogleTest binary and nothing
# else; "all" or nothing runs everything.
# Usage: scripts/run-tests.sh [--sanitized] BUILD_DIR JOBS [all | binaries | TEST_BINARY_NAME...]
set -euo pipefail
sanitized=0
if [[ "${1:-}" == --sanitized ]]; then sanitized=1; shift; fi
build=$(cd "${1:?usage: $0 [--sanitized] BUILD_DIR JOBS [all | binaries | TEST_BINARY_NAME...]}" && pwd)
jobs=${2:-$(nproc)}
shift 2 || true
list="$build/gtest_binaries.txt"
[[ -f "$list" ]] || { echo "run-tests: $list is missing (configure $build first)" >&2; exit 2; }
logs="$build/test-logs"
rm -rf "$logs" && mkdir -p "$logs"
if [[ $sanitized -eq 1 ]]; then
  reports_dir="$build/sanitize-logs"
  rm -rf "$reports_dir" && mkdir -p "$reports_dir"
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:log_path=$reports_dir/report"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports_dir/report"
  # The structured-output client's random-schema property test: 1000 schemas in the Release run,
  # a tenth of them here, where each costs ~5x (100 s of the sanitized suite's 250 at 1000): the
  # sanitizers look for memory errors in the schema compiler, which the first hundred exercise.
  export STRATA_SCHEMA_CASES="${STRATA_SCHEMA_CASES:-100}"
fi

# The jobs, one a line: "gtest PATH" or "ctest NAME".
wanted="$logs/wanted.txt"
if [[ "$*" == binaries ]]; then
  xargs ls -S <"$list" | sed 's/^/gtest /' >"$wanted"
elif [[ $# -gt 0 && "$*" != all ]]; then
  for name in "$@"; do
    grep -x ".*/$name" "$list" || { echo "run-tests: no test binary '$name' in $list" >&2; exit 2; }
  done | sed 's/^/gtest /' >"$wanted"
else
  skip_labels='unit'
  skip_names='^$'
  if [[ $sanitized -eq 1 ]]; then skip_labels='unit|fuzz|static|emulated'; skip_names='^(container_image_smoke|model_[a-z_]+_avx2_table)$'; fi
  ctest --test-dir "$build" -N -LE "$skip_labels" -E "$skip_names" |
    sed -n 's/^ *Test *#[0-9]*: \(.*\)$/ctest \1/p' >"$wanted"
  xargs ls -S <"$list" | sed 's/^/gtest /' >>"$wanted"
fi

# test-order.txt: "SECONDS KIND WHAT" a line, longest first, kept across runs.
order="$build/test-order.txt"
touch "$order"
jobs_file="$logs/jobs.txt"
{ cut -d' ' -f2- "$order" | grep -Fxf "$wanted" || true; cut -d' ' -f2- "$order" | grep -Fxvf - "$wanted" || true; } \
  >"$jobs_file"

# The filter of a binary in the sanitized run: sanitized_filter in scripts/test-filters.sh.
source "$(dirname "$0")/test-filters.sh"
export -f model_grid_filter sanitized_filter
run_one() {
  local kind=$1 what=$2 build=$3 logs=$4 start=$SECONDS rc=0 log filter='*'
  log="$logs/$(basename "$what").log"
  if [[ $kind == gtest ]]; then
    if [[ $STRATA_SANITIZED_RUN == 1 ]]; then filter=$(sanitized_filter "$what"); fi
    (cd "$(dirname "$what")" && timeout 1200 "$what" --gtest_brief=1 --gtest_filter="$filter") >"$log" 2>&1 || rc=$?
  else
    ctest --test-dir "$build" -R "^${what}\$" -V >"$log" 2>&1 || rc=$?
  fi
  echo "test: $kind $what rc=$rc $((SECONDS - start)) s"
  if [[ $rc -ne 0 ]]; then tail -n 60 "$log"; return 1; fi
}
export -f run_one
export STRATA_SANITIZED_RUN=$sanitized

status=0
sed "s|\$| $build $logs|" "$jobs_file" | xargs -P "$jobs" -L 1 bash -c 'run_one "$@"' _ |
  tee "$logs/summary.txt" || status=1
sed -n 's/^test: \([a-z]*\) \(.*\) rc=[0-9]* \([0-9]*\) s$/\3 \1 \2/p' "$logs/summary.txt" >"$logs/durations.txt"
{ cat "$logs/durations.txt"; cut -d' ' -f2- "$logs/durations.txt" | grep -Fvf - "$order" || true; } |
  sort -n -r >"$order.new" && mv "$order.new" "$order"

grep -h -E '^SKIPPED: |^\[  SKIPPED \] [A-Za-z]' "$logs"/*.log 2>/dev/null | sort -u || true
cases=$(grep -h -o '^\[  PASSED  \] [0-9]*' "$logs"/*.log 2>/dev/null | awk '{s+=$4} END{print s+0}')
echo "run-tests: $(grep -c '^test: gtest ' "$logs/summary.txt" || true) GoogleTest binaries ($cases cases)," \
     "$(grep -c '^test: ctest ' "$logs/summary.txt" || true) other tests"
if [[ $sanitized -eq 1 ]]; then
  found=$(grep -l -E 'ERROR: [A-Za-z]+Sanitizer|runtime error:|SUMMARY: [A-Za-z]+Sanitizer' \
          "$reports_dir"/report.* 2>/dev/null || true)
  if [[ -n "$found" ]]; then
    cat $found
    echo "run-tests: sanitizer reports above ($(echo $found))" >&2
    exit 1
  fi
fi
if [[ $status -ne 0 ]]; then
  echo "run-tests: failed: $(grep '^test: ' "$logs/summary.txt" | grep -v ' rc=0 ' | awk '{print $3}' | tr '\n' ' ')" >&2
  exit 1
fi
echo "run-tests: all passed"
