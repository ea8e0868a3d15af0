#!/usr/bin/env bash
# Runs a whole-model GoogleTest binary again through the avx2 kernel table (STRATA_KERNELS=avx2),
# which a CPU with AVX-512 or AVX-VNNI would otherwise never run: its packed kernels and its
# attention and delta-rule code composed into whole forward passes, checked for batch
# invariance and against the float64 reference, on the cases avx2_table_filter in
# scripts/test-filters.sh names (the model grid: each architecture with one float and one
# quantised type, llama with every type; the table's kernels differ by weight type, which
# kernels_matmul_test checks kernel by kernel).
# Skipped (77) where the CPU's own table is avx2 or scalar: there the binary's own run already
# was this run, or the CPU cannot run the table.
# Usage: run.sh STRATA_BIN TEST_BIN
set -euo pipefail
strata=$1
test_bin=$(realpath "$2")
table=$(env -u STRATA_KERNELS "$strata" version | sed -n 's/^kernels //p')
if [[ $table == avx2 || $table == scalar ]]; then
  echo "$(basename "$test_bin") on the avx2 table: skipped, this CPU's own table is $table"
  exit 77
fi
source "$(dirname "$0")/../../scripts/test-filters.sh"
cd "$(dirname "$test_bin")"
STRATA_KERNELS=avx2 exec "$test_bin" --gtest_brief=1 --gtest_filter="$(avx2_table_filter "$test_bin")"
