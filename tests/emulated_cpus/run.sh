#!/usr/bin/env bash
# Runs the built binaries on CPUs this machine is not, under qemu-user's emulation, which raises
# SIGILL on any instruction the named CPU model lacks:
#   EPYC-Milan  an AMD EPYC Zen 3: AVX2, FMA and F16C, no AVX-512, no AVX-VNNI (the AVX2-only
#               machines most users have). Strata must pick its avx2 table by itself, and the
#               kernel tests, the whole-model golden and exactness tests and the engine's
#               batched-equals-solo check must pass on it.
#   Nehalem     an x86-64 without AVX: the scalar table, the golden tests and the engine check.
#   EPYC-Milan without FMA, or without F16C: the scalar table.
# `STRATA_KERNELS=avx2` on a CPU with AVX-512 runs the same table, but not on a CPU without
# AVX-512: an AVX-512 instruction reached from code the avx2 table runs (a kernel file built with
# the wrong flags, an inline function the linker took from an AVX-512 object, a CPU check that
# picks a table the CPU lacks) passes there and crashes here.
# Emulation is slow, so the largest attention shape and most whole-model architectures are left
# to the native runs (kernels_test, model_batch_invariance_test); every kernel and table path is
# still taken. qemu 7.2's emulation has no AVX-VNNI or AVX-512, so the avx2vnni and avx512 tables
# are not checked this way.
# env: STRATA_BIN, KERNELS_TEST, KERNELS_MATMUL_TEST, MODEL_GOLDEN_TEST, MODEL_MOE_GOLDEN_TEST,
#      MODEL_QUANT_TYPES_TEST, MODEL_BATCH_INVARIANCE_TEST (the binaries), SHARED_DIR (../shared).
# Exits 77 (skipped) without qemu-x86_64 or on a host that is not x86-64.
set -euo pipefail
shopt -s inherit_errexit
: "${STRATA_BIN:?} ${KERNELS_TEST:?} ${KERNELS_MATMUL_TEST:?} ${MODEL_GOLDEN_TEST:?} ${MODEL_MOE_GOLDEN_TEST:?}"
: "${MODEL_QUANT_TYPES_TEST:?} ${MODEL_BATCH_INVARIANCE_TEST:?} ${SHARED_DIR:?}"
if [[ $(uname -m) != x86_64 ]]; then echo "emulated_cpus: skipped: the host is not x86-64"; exit 77; fi
if ! command -v qemu-x86_64 >/dev/null; then
  echo "emulated_cpus: skipped: no qemu-x86_64 (Debian package qemu-user; scripts/install-deps.sh --test)"
  exit 77
fi
# The table is the one the CPU gets, not one a caller asked for.
unset STRATA_KERNELS
stories=$SHARED_DIR/models/stories260K.gguf
moe=$SHARED_DIR/models/moe/tiny-qwen3moe.gguf

# Runs "$@" on CPU model $1; qemu's notes on host features its emulation lacks are dropped.
on_cpu() {
  local cpu=$1 rc=0
  shift
  qemu-x86_64 -cpu "$cpu" "$@" 2> >(grep -v "TCG doesn't support requested feature" >&2) || rc=$?
  if [[ $rc -eq 132 ]]; then
    echo "emulated_cpus: $(basename "$1") hit an illegal instruction on $cpu: code its kernel table" \
      "runs uses an instruction that CPU lacks" >&2
  fi
  return "$rc"
}

# Fails unless strata, started on CPU $1, picks kernel table $2 (`strata version`: "kernels avx2").
# (It asked `strata bench` before: 4.7 emulated seconds a call, most of them its bandwidth probe.)
expect_table() {
  local out
  out=$(on_cpu "$1" "$STRATA_BIN" version)
  if ! grep -qx "kernels $2" <<<"$out"; then
    echo "emulated_cpus: on $1 strata should take the $2 table; its version said:" >&2
    echo "$out" >&2
    return 1
  fi
  echo "$1: strata took the $2 table"
}

# A GoogleTest binary on CPU $1, with its other arguments.
gtest_on() {
  local cpu=$1 bin=$2
  shift 2
  echo "$cpu: $(basename "$bin") $*"
  (cd "$(dirname "$bin")" && on_cpu "$cpu" "$bin" --gtest_brief=1 "$@")
}

# The engine on CPU $1: every request of a batch gives the bytes it gives alone.
engine_on() {
  local cpu=$1 model=$2
  echo "$cpu: strata batch-test $(basename "$model")"
  on_cpu "$cpu" "$STRATA_BIN" --log-level warn batch-test -m "$model" --threads 2 --parallel 4 --n 6 --max-new 16 |
    tail -n 1
}

avx2=EPYC-Milan
expect_table "$avx2" avx2
# Not the scalar table's cases: baseline code, the same on every CPU, and run natively; emulated they
# took 100 of the binary's 156 CPU seconds (qemu on a Xeon host, session 45).
gtest_on "$avx2" "$KERNELS_MATMUL_TEST" --gtest_filter='-*/scalar_*'
# Each attention shape's check against the oracle's bytes, which runs the avx2 table's decode and
# tile code for that shape; not the shape's other checks (the float64 softmax, every range of kv
# heads, other block addresses: 79 of the binary's 95 emulated seconds, session 46), which call the
# same code with the same flags and run natively on every table. Nor the 515-token shape (27 of
# its 60 emulated seconds before), gpt-oss's 64-head shape, the rows starting past position 0, the
# sinks and the tile-rows-alone check, all of them the same decode and tile code; nor the
# soft-capped scores (the same kernels with one scalar function per score) or the delta rule over
# many steps (the one-step case runs every table's kernel): emulation on an Intel host ran this
# binary 3x slower than on an AMD one, and the whole script near its 600 s limit once.
gtest_on "$avx2" "$KERNELS_TEST" --gtest_filter='-*_t515_*:*_t140_*:*RowStartingPastZero*:*Sinks*:'`
  `'*EveryRowOfATileGetsItsSoloBytes*:*Softcap*:*OverManySteps*:*MatchesFloat64SoftmaxOfTheStoredValues*:'`
  `'*EveryRangeOfKvHeadsGivesTheBytesOfTheWholeCall*:*BitIdenticalWhateverTheBlockAddresses*'
gtest_on "$avx2" "$MODEL_GOLDEN_TEST"
gtest_on "$avx2" "$MODEL_MOE_GOLDEN_TEST"
# Not the I2_S files' cases: their conversion is plain code, and the TQ2_0 kernels they then run
# ran in kernels_matmul_test above (the cases write and load three models: seconds emulated).
gtest_on "$avx2" "$MODEL_QUANT_TYPES_TEST" --gtest_filter='-I2sModel.*'
# Every K/V type and llama with a quantised weight type (each type's matmul and packed kernels ran
# in kernels_matmul_test above, the other nine types took 9 s here). Not Gemma 3's or gpt-oss's
# sliding windows (11 s; their kernels run in the attention cases above), nor Qwen3.5's hybrid
# layers (60 s; kernels_test's DeltaRule cases run their kernel above), nor the other K/V-type
# cases (wide and padded heads, items over several K/V heads, rope factors, split layers: 150 of
# this binary's 174 emulated seconds on an Intel host), whose attention paths kernels_test's
# shapes take above.
gtest_on "$avx2" "$MODEL_BATCH_INVARIANCE_TEST" \
  --gtest_filter='BatchInvarianceKvTypeTest.HoldsForEveryKvCacheType:*/llama_q4_K'
engine_on "$avx2" "$stories"
engine_on "$avx2" "$moe"

# The avx2 table's kernels use FMA and F16C too: a CPU (or a hypervisor's CPU model) with AVX2
# but without either gets the scalar table.
expect_table "$avx2,-fma" scalar
expect_table "$avx2,-f16c" scalar

plain=Nehalem
expect_table "$plain" scalar
gtest_on "$plain" "$MODEL_GOLDEN_TEST"
gtest_on "$plain" "$MODEL_MOE_GOLDEN_TEST"
engine_on "$plain" "$stories"
echo "emulated_cpus: passed"
