#!/usr/bin/env bash
# Training tokens per second: sinkscope-cli train against the same model and
# batch in Debian's python3-torch (same libtorch underneath), alternating
# runs. Needs a build, the corpus (build/corpus) and `apt-get install python3-torch`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out="$(mktemp -d)"
for run in 1 2 3; do
  rm -rf "$out/model"
  build/app/sinkscope-cli train --corpus build/corpus/train.txt --out "$out/model" \
    --tokenizer resources/models/rope-decoder/tokenizer.json --steps 60 --log-every 20 \
    --checkpoint-every 1000 --warmup 5 2>&1 | grep "^step 60" | sed 's/.*lr [^ ]*  /sinkscope: /; s/ tok\/s.*/ tokens\/s/'
  /usr/bin/python3 tests/benchmarks/train_speed_reference.py 40
done
rm -rf "$out"
