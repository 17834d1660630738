#!/usr/bin/env bash
# Start-up of commands that run no model, as built (libtorch loaded only when
# a model runs) against the same program with libtorch preloaded, which is
# what every process paid when the programs linked libtorch. Alternating
# runs, median wall time of each, the ratio within this one run, the load
# average stated.
#
#   tests/benchmarks/startup_compare.sh [BUILD_DIR] [RUNS]
set -euo pipefail
build="$(cd "${1:-build}" && pwd)"
runs="${2:-7}"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
torch="$(ldd "$build/lib/sinkscope/sinkscope_torch.so" | awk '/libtorch_cpu/ {print $3}')"
[[ -f "$torch" ]] || { echo "no libtorch_cpu found beside the model runtime" >&2; exit 1; }
cli="$build/app/sinkscope-cli"
capture="$src/tests/fuzz/corpus/capture/valid-full"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
py="import numpy as np, sinkscope
a = np.tril(np.ones((1, 2, 6, 6), np.float32)); a /= a.sum(-1, keepdims=True)
sinkscope.analyze(a)"

millis() {  # wall milliseconds of one run of "$@" (bash's own clock: no process)
  local start=$EPOCHREALTIME
  "$@" >/dev/null 2>&1
  awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f\n", (b - a) * 1000}'
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $runs runs each, alternating"
printf '%-52s %10s %14s %7s\n' command "as built" "libtorch too" ratio
measure() {
  local name="$1"; shift
  local a=() b=()
  for _ in $(seq "$runs"); do
    a+=("$(millis "$@")")
    b+=("$(millis env LD_PRELOAD="$torch" "$@")")
  done
  local ma mb
  ma=$(printf '%s\n' "${a[@]}" | median)
  mb=$(printf '%s\n' "${b[@]}" | median)
  printf '%-52s %8s ms %12s ms %7s\n' "$name" "$ma" "$mb" "$(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.3f", a / b}')"
}
measure "sinkscope-cli --help" "$cli" --help
measure "sinkscope-cli info" "$cli" info
measure "sinkscope-cli analyze --capture valid-full" "$cli" analyze --capture "$capture" --out "$out/a" --force
measure "python3: import sinkscope; analyze (1x2x6x6)" env PYTHONPATH="$build/python" /usr/bin/python3 -c "$py"
