#!/usr/bin/env bash
# The .deb as a user receives it. cpack packs this build tree; the package's
# files are unpacked (dpkg-deb -x, the files `dpkg -i` would install) into a
# scratch root, and from there, with nothing of the build tree on any path:
#   - its Depends are installed packages, the module's python3 and numpy among them;
#   - `import sinkscope` loads the module from the package's dist-packages;
#   - the module's sink metric of a uniform causal map equals its closed form;
#   - a capture saved by the module is analysed by the package's sinkscope-cli,
#     whose sinks table equals the module's;
#   - the package's model runtime (lib/sinkscope/sinkscope_torch.so) is the one
#     the package's CLI and module load to run a model.
#
#   tests/package/deb_package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"
model="$(cd "$2" && pwd)/resources/models/rope-decoder-bos-first"
work="$(mktemp -d "${TMPDIR:-/tmp}/sinkscope-deb-XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

if ! cpack --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log" >&2
  fail "cpack could not make the .deb"
fi
debs=("$work"/out/sinkscope_*.deb)
[[ ${#debs[@]} -eq 1 && -f "${debs[0]}" ]] || fail "cpack made no single sinkscope_*.deb: $(ls "$work/out")"
deb="${debs[0]}"
echo "package: $(basename "$deb") ($(du -h "$deb" | cut -f1))"

# Every dependency (first of each alternative) is a package this machine has.
depends="$(dpkg-deb -f "$deb" Depends)"
echo "Depends: $depends"
for want in python3-numpy "python3 (>= " "python3 (<< " libopenblas0-pthread; do
  [[ "$depends" == *"$want"* ]] || fail "Depends lacks $want"
done
IFS=',' read -ra entries <<<"$depends"
for entry in "${entries[@]}"; do
  name="$(echo "${entry%%|*}" | sed -E 's/\(.*\)//; s/^ +//; s/ +$//')"
  dpkg-query -W -f='${Status}\n' "$name" 2>/dev/null | grep -q "install ok installed" ||
    fail "Depends names $name, which is not installed here"
done

root="$work/root"
dpkg-deb -x "$deb" "$root"
site="$root/usr/lib/python3/dist-packages"
[[ -f "$site/sinkscope/__init__.py" ]] || fail "the package holds no sinkscope/__init__.py under /usr/lib/python3/dist-packages"
ls "$site"/sinkscope/_core*.so >/dev/null 2>&1 || fail "the package holds no compiled sinkscope/_core module"
[[ -x "$root/usr/bin/sinkscope-cli" && -x "$root/usr/bin/sinkscope" ]] || fail "the package lacks its programs"
runtime="$root/usr/lib/sinkscope/sinkscope_torch.so"
[[ -f "$runtime" ]] || fail "the package holds no model runtime at /usr/lib/sinkscope/sinkscope_torch.so"

cd "$work"
env -i PATH=/usr/bin:/bin HOME="$work" PYTHONPATH="$site" PYTHONNOUSERSITE=1 /usr/bin/python3 - "$site" "$work" <<'PY'
import sys
import numpy as np
import sinkscope

site, work = sys.argv[1], sys.argv[2]
assert sinkscope.__file__.startswith(site), "imported from %s, not the package" % sinkscope.__file__
T = 6
uniform = np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]
alpha = np.asarray(sinkscope.sink_metric(uniform))
# metrics.md: alpha_k averages A[q][k] over the T - k queries that can see key
# k; in a uniform causal map query q gives each of its keys 1/(q+1).
expected = np.array([sum(1.0 / (q + 1) for q in range(k, T)) / (T - k) for k in range(T)])
assert np.allclose(alpha, expected, atol=1e-6), (alpha, expected)
first = np.zeros((T, T))
first[:, 0] = 1  # every query on the first token
A = np.stack([uniform, first])[None]  # [1 layer, 2 heads, T, T]
tokens = ["<s>", "the", "cat", "sat", "on", "it"]
sinkscope.save_capture(work + "/capture.npz", A, tokens=tokens)
tables = sinkscope.analyze(A, tokens=tokens)
with open(work + "/module_sinks.csv", "w") as out:
    out.write(tables["sinks"].text)
print("module: imported from the package; sink metric equals the closed form")
PY

# A model's run through the package's module loads the package's runtime
# (found beside the module as installed, not in the build tree).
env -i PATH=/usr/bin:/bin HOME="$work" PYTHONPATH="$site" PYTHONNOUSERSITE=1 /usr/bin/python3 - "$model" "$runtime" <<'PY'
import os, sys
import sinkscope
model, runtime = sys.argv[1], os.path.realpath(sys.argv[2])
run = sinkscope.Model(model).run("The cat sat on the mat.")
maps = open("/proc/self/maps").read()
assert runtime in maps, "the module did not load the package's runtime " + runtime
print("module: ran a model with the package's runtime")
PY
LD_DEBUG=libs "$root/usr/bin/sinkscope-cli" attention "$model" --text "a b" --layer 0 --head 0 \
  --csv "$work/map.csv" 2>"$work/ld.log" >/dev/null || { tail -5 "$work/ld.log" >&2; fail "the package's CLI could not run a model"; }
grep -q "calling init: $(realpath "$runtime")" "$work/ld.log" ||
  fail "the package's CLI did not load the package's runtime $runtime"

"$root/usr/bin/sinkscope-cli" analyze --capture "$work/capture.npz" --out "$work/cli" >"$work/cli.log" 2>&1 ||
  { cat "$work/cli.log" >&2; fail "the package's sinkscope-cli could not analyse the module's capture"; }
body() { grep -v '^#' "$1"; }
[[ $(body "$work/cli/sinks.csv" | wc -l) -gt 2 ]] || fail "the package's CLI wrote no sinks rows"
diff <(body "$work/cli/sinks.csv") <(body "$work/module_sinks.csv") >&2 ||
  fail "the package's CLI and module disagree on the sinks table"
"$root/usr/bin/sinkscope-cli" --version
echo "PASS: the .deb's module imports, computes, and agrees with its CLI"
