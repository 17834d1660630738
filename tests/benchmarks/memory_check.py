#!/usr/bin/python3
"""Peak resident memory of sinkscope-cli's commands against the memory goal.

For each model folder given, runs `attention`, `tensors`, `experiment bos` and
`analyze` (weight spectra left out: they hold two widened matrices at a time) on
one text, each as a fresh process, and prints its peak RSS (wait4's ru_maxrss)
beside the goal: the folder's weights on disk + the capture budget (2 GiB, the
default) + 1 GiB. Folders come from `sinkscope-cli random-model --like NAME DIR
[--dtype F16|F32]`.

  /usr/bin/python3 tests/benchmarks/memory_check.py --text-file T.txt DIR [DIR ...]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GIB = 1024 ** 3


def weights_bytes(folder):
    return sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder)
               if f.endswith(".safetensors"))


def run(argv):
    """(peak RSS in bytes, wall seconds, exit code) of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace").strip()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        print(f"  {' '.join(argv[1:3])}: exit {code}: {err}", file=sys.stderr)
    return usage.ru_maxrss * 1024, wall, code


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--text-file", required=True)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "sinkscope-cli"))
    args = ap.parse_args()
    text = open(args.text_file, encoding="utf-8").read()
    out = tempfile.mkdtemp(prefix="sinkscope-memory-")
    print(f"load average {os.getloadavg()[0]:.2f}; text of {len(text)} characters")
    print("folder | command | weights on disk | peak RSS | goal (disk + 2 GiB + 1 GiB) | wall")
    for folder in args.folders:
        disk = weights_bytes(folder)
        goal = disk + 3 * GIB
        commands = {
            "attention": ["attention", folder, "--text", text, "--layer", "0", "--head", "0",
                          "--csv", os.path.join(out, "a.csv")],
            "tensors": ["tensors", folder, "--text", text, "--out", os.path.join(out, "t.npz")],
            "experiment bos": ["experiment", "bos", folder, "--text", text, "--out",
                               os.path.join(out, "e")],
            "analyze": ["analyze", folder, "--text", text, "--out", os.path.join(out, "an"),
                        "--no-weight-spectra"],
        }
        for name, argv in commands.items():
            for leftover in ("a.csv", "t.npz", "e", "an"):
                p = os.path.join(out, leftover)
                shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) else (
                    os.path.exists(p) and os.remove(p))
            peak, wall, code = run([args.cli] + argv)
            verdict = "met" if peak <= goal and code == 0 else "NOT met"
            print(f"{os.path.basename(folder.rstrip('/'))} | {name} | {disk / GIB:.2f} GiB | "
                  f"{peak / GIB:.2f} GiB | {goal / GIB:.2f} GiB: {verdict} | {wall:.1f} s", flush=True)
    shutil.rmtree(out, ignore_errors=True)
    print(f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
