#!/usr/bin/env bash
# Runs every libFuzzer target of the fuzz preset for RUNS executions each
# (default 1,000,000), one after the other on one core, starting from the
# committed corpus and growing a work corpus beside the build. Prints one
# summary line per target (executions, executions per second, coverage,
# features, corpus, time) and exits non-zero at the first finding: a crash, a
# leak, a timeout, or an input that takes a second or more when replayed alone
# (every reader must be near-linear, so a slow input is a finding too). The input lands in
# build-fuzz/findings/.
#
#   cmake --preset fuzz && cmake --build --preset fuzz
#   tests/fuzz/run_fuzzers.sh [RUNS] [TARGET...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
runs="${1:-1000000}"
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(safetensors config index encode tokenizer sentences session study shards capture npy)
bin=build-fuzz/tests/fuzz
work=build-fuzz/corpus
findings=build-fuzz/findings
mkdir -p "$findings"
for t in "${targets[@]}"; do
  # Inputs large enough for every structure of the target, small enough to be fast.
  case "$t" in
    tokenizer) max_len=8192 ;;  # a whole small tokenizer.json (the seeds are 2-12 KB)
    encode) max_len=512 ;;      # a paragraph; long words are in the committed corpus
    study) max_len=65536 ;;     # study.json and seven tables (the valid seed is ~50 KB)
    shards) max_len=65536 ;;    # study.json and a shard of six records (~30 KB)
    *) max_len=4096 ;;
  esac
  mkdir -p "$work/$t"
  log="$findings/$t.log"
  start=$(date +%s)
  if ! "$bin/fuzz_$t" -runs="$runs" -max_len="$max_len" -timeout=10 -report_slow_units=1 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$findings/$t-" "$work/$t" "tests/fuzz/corpus/$t" \
      >"$log" 2>&1; then
    echo "fuzz_$t: FINDING (see $log)"
    tail -40 "$log"
    exit 1
  fi
  end=$(date +%s)
  # A unit reported slow while the machine was busy is replayed alone: only
  # one that still takes a second is a finding.
  for unit in "$findings/$t"-slow-unit-*; do
    [[ -e "$unit" ]] || continue
    start_ns=$(date +%s%N)
    "$bin/fuzz_$t" "$unit" >/dev/null 2>&1 || true
    ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
    if (( ms >= 1000 )); then
      echo "fuzz_$t: FINDING, $unit takes $ms ms alone (see $log)"
      exit 1
    fi
    echo "fuzz_$t: $(basename "$unit") was slow under load, $ms ms alone"
    rm -f "$unit"
  done
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1)
  execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
  secs=$((end - start > 0 ? end - start : 1))
  echo "fuzz_$t: $execs executions in $secs s ($((execs / secs)) per s); ${done_line#*DONE}"
done
