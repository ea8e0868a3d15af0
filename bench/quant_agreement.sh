#!/usr/bin/env bash
# Greedy agreement with llama.cpp on low-bit files: a generated F32 model (preset small, the
# llama SentencePiece vocabulary) is quantized to each type by llama.cpp's llama-quantize and
# by `strata quantize`; each file is continued greedily for 32 tokens by llama-simple and by
# `strata run --temp 0`, and the script prints how many leading tokens agree. It also lists
# the tensors whose type differs between the two quantizers' files.
#
# Usage: bench/quant_agreement.sh [TYPE...]   (default: Q3_K_M Q2_K IQ4_XS)
# Env: STRATA (build/src/cli/strata), LLAMA_BIN (/tmp/llama.cpp/build/bin), DIR (/tmp/quant-agree),
#      VOCAB (../shared/vocab/ggml-vocab-llama-spm.gguf), PRESET (small), N (32).
set -euo pipefail

STRATA=${STRATA:-build/src/cli/strata}
LLAMA_BIN=${LLAMA_BIN:-/tmp/llama.cpp/build/bin}
DIR=${DIR:-/tmp/quant-agree}
VOCAB=${VOCAB:-../shared/vocab/ggml-vocab-llama-spm.gguf}
PRESET=${PRESET:-small}
N=${N:-32}
PROMPT="Once upon a time"
TYPES=("$@")
[ ${#TYPES[@]} -eq 0 ] && TYPES=(Q3_K_M Q2_K IQ4_XS)

mkdir -p "$DIR"
F32="$DIR/$PRESET-f32.gguf"
[ -f "$F32" ] || "$STRATA" mkmodel --preset "$PRESET" --vocab-from "$VOCAB" --seed 7 -o "$F32" > /dev/null

# The token ids of a continuation text (without BOS).
ids() { "$STRATA" tokenize -m "$F32" --ids "$1"; }

# Leading tokens two id lists share.
common() {
  local -a a=($1) b=($2)
  local i=0
  while [ $i -lt ${#a[@]} ] && [ $i -lt ${#b[@]} ] && [ "${a[$i]}" = "${b[$i]}" ]; do i=$((i + 1)); done
  echo "$i of ${#a[@]}"
}

# Type per tensor as gguf-info lists it, sorted by name.
types() { "$STRATA" gguf-info "$1" | awk '$1 ~ /weight$/ {print $1, $2}' | sort; }

for t in "${TYPES[@]}"; do
  "$LLAMA_BIN/llama-quantize" "$F32" "$DIR/llq-$t.gguf" "$t" 1 > "$DIR/llq-$t.log" 2>&1
  "$STRATA" quantize --no-progress --threads 1 "$F32" "$DIR/sq-$t.gguf" "$t" > /dev/null
  for src in llq sq; do
    f="$DIR/$src-$t.gguf"
    ref=$("$LLAMA_BIN/llama-simple" -m "$f" -n "$N" "$PROMPT" 2> /dev/null | sed -e 's/^<s> //' -e "s/^$PROMPT//")
    got=$("$STRATA" run -m "$f" -p "$PROMPT" -n "$N" --temp 0 --threads 1 2> /dev/null)
    echo "$t ($src file): leading tokens that agree: $(common "$(ids "$ref")" "$(ids "$got")")"
  done
  diff <(types "$DIR/llq-$t.gguf") <(types "$DIR/sq-$t.gguf") > /dev/null &&
    echo "$t: every tensor has the same type in both files" ||
    { echo "$t: tensor types that differ (< llama-quantize, > strata quantize):"; diff <(types "$DIR/llq-$t.gguf") <(types "$DIR/sq-$t.gguf") | grep '^[<>]' || true; }
done
