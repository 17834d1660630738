#!/usr/bin/env bash
# The two set-up commands of README.md:
#   installer/setup.sh run    install what is missing, build, launch the GUI
#                             (no display: run it under Xvfb, save a screenshot)
#   installer/setup.sh test   install what is missing, build, run every test
#                             (under Xvfb when there is no display)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode="${1:-}"
if [[ "$mode" != "run" && "$mode" != "test" ]]; then
  echo "usage: installer/setup.sh run|test" >&2
  exit 2
fi

XVFB=(xvfb-run -a -s "-screen 0 1600x1000x24")
have_display() { [[ -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ]]; }

installer/install-deps.sh
# Qt warns when this is unset (root shells, CI); give it a private folder.
if [[ -z "${XDG_RUNTIME_DIR:-}" ]]; then
  export XDG_RUNTIME_DIR="${TMPDIR:-/tmp}/sinkscope-runtime-$(id -u)"
  mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
fi

cmake --preset release >build-configure.log 2>&1 || { cat build-configure.log >&2; exit 1; }
rm -f build-configure.log
cmake --build --preset release
# The training corpus (WordNet glosses and examples) for sinkscope-cli train.
if [[ ! -f build/corpus/train.txt ]]; then
  build/app/sinkscope-cli corpus --out build/corpus >/dev/null
fi

if [[ "$mode" == "run" ]]; then
  args=()
  if [[ -n "${SINKSCOPE_MODEL:-}" ]]; then args+=(--model "$SINKSCOPE_MODEL"); fi
  if have_display; then
    exec build/app/sinkscope "${args[@]}"
  fi
  shot="build/screenshots/main-window.png"
  echo "No display: running SinkScope under Xvfb and saving a screenshot." >&2
  exec "${XVFB[@]}" build/app/sinkscope "${args[@]}" --screenshot "$shot"
fi

if have_display; then
  ctest --preset release
else
  "${XVFB[@]}" ctest --preset release
fi
