#!/usr/bin/env bash
# The Python pipeline that tests/benchmarks/pipeline_compare.py measures
# SinkScope against (not needed to build, run or test SinkScope).
set -euo pipefail
PACKAGES=(python3-torch python3-numpy python3-scipy python3-networkx python3-gudhi ripser)
SUDO=""
[[ $(id -u) -eq 0 ]] || SUDO="sudo"
$SUDO apt-get install -y --no-install-recommends "${PACKAGES[@]}"
