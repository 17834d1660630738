#!/bin/bash
# The outputs users rely on, as they are written today, for byte-for-byte
# checks while the code beneath them is rebuilt:
#
#   tests/golden/make_golden_outputs.sh SOURCE_DIR SINKSCOPE_CLI SINKSCOPE OUT_DIR
#
# runs `analyze --text` (decoder, decoder with interventions, encoder),
# `analyze --sentences`, every `experiment` kind, `study run` in two shards with
# `study merge`, and `figure-set` (from the model and from the study) on the
# built-in models and
# writes what they write into OUT_DIR. Lines that name the machine rather than
# the numbers are normalised: the command line, the tool's version, shard
# manifests (host, time). The committed tests/golden/outputs were made by this
# script with OpenBLAS's Haswell kernel (OPENBLAS_CORETYPE=Haswell), on an
# AVX-512 Xeon and, for files changed since, an AMD EPYC (only the files a change
# touched are replaced, so the two machines' float rounding mix; both agree
# within the test's tolerance); golden_outputs_test runs it again, under the CPU's own kernel
# and under several others, and compares every file: text and whole numbers
# exactly, other numbers to float32 rounding (tests/support/golden_compare.h).
set -euo pipefail
if [ $# -ne 4 ]; then
  echo "usage: $0 SOURCE_DIR SINKSCOPE_CLI SINKSCOPE OUT_DIR" >&2
  exit 2
fi
src=$(realpath "$1")
cli=$(realpath "$2")
gui=$(realpath "$3")
out=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
out=$(realpath "$out")

# Paths in headers are those typed: run where "resources/..." and "s.txt" are.
cd "$work"
ln -s "$src/resources" resources
head -n 12 resources/examples/sentences.txt > s.txt
export SINKSCOPE_CACHE_DIR="$work/cache"
export QT_QPA_PLATFORM=offscreen
decoder=resources/models/rope-decoder-bos-first
encoder=resources/models/learned-encoder
text='The cat sat on the mat because it was tired.'
mkdir results

run() { "$@" > /dev/null 2> "$work/stderr" || { cat "$work/stderr" >&2; exit 1; }; }

run "$cli" analyze "$decoder" --text "$text" --out results/analyze-text \
  --json results/analyze-text.json
run "$cli" analyze "$decoder" --text "$text" --out results/analyze-text-interventions \
  --json results/analyze-text-interventions.json --drop-first --ablate 1:2,3:0 \
  --percentile 80 --gamma 0.25 --top-n 2 --query 5 --symmetrise max
run "$cli" analyze "$encoder" --text "$text" --out results/analyze-text-encoder \
  --json results/analyze-text-encoder.json
run "$cli" analyze "$decoder" --sentences s.txt --out results/analyze-sentences \
  --json results/analyze-sentences.json --functional --bootstrap 50 --batch 4
for kind in kl bos fisher perturb rank ablate sparsify; do
  run "$cli" experiment "$kind" "$decoder" --text "$text" --out "results/experiment-$kind"
done
run "$cli" study run "$decoder" --sentences s.txt --out results/study --shard 1/2 \
  --batch 4 --functional --curves
run "$cli" study run "$decoder" --sentences s.txt --out results/study --shard 0/2 \
  --batch 4 --functional --curves
run "$cli" study merge results/study --bootstrap 50
run "$gui" figure-set "$decoder" --sentences s.txt --out results/figure-set \
  --max-sentences 12 --sparsification-sentences 1
run "$gui" figure-set --study results/study --out results/figure-set-study
find results/figure-set results/figure-set-study -type f ! -name '*.csv' -delete
rm results/study/shards/*/manifest.json

find results -type f -print0 | xargs -0 sed -i \
  -e 's|^# command: .*|# command: (normalised)|' \
  -e 's|^\( *"command": "\)sinkscope[^"]*"|\1(normalised)"|' \
  -e 's|\(sinkscope-cli[a-z -]*\) [0-9][0-9.]*|\1 VERSION|g' \
  -e 's|\(sinkscope[a-z -]*\) [0-9]\+\.[0-9]\+\.[0-9]\+|\1 VERSION|g'
cp -r results/. "$out/"
