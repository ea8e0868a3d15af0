#!/usr/bin/env bash
# `make run`: serve the default model (see README). Falls back to `strata run` until serve exists.
set -euo pipefail
strata="$1"
if "$strata" serve --help >/dev/null 2>&1; then
  exec "$strata" serve
fi
model=../shared/models/stories260K.gguf
exec "$strata" run -m "$model" -p "Once upon a time" -n 80
