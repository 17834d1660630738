#!/usr/bin/python3
"""SinkScope's forward pass against torch eager on the same weights.

The folder is model_benchmark's GPT-2-small-shaped one ($TMPDIR/sinkscope-bench-
gpt2-small, 12 x 12, d = 768, 50,257 words; model_benchmark writes it). Torch
eager is pipeline_compare.py's GPT-2 forward in Debian's python3-torch, weights
loaded once, timed in this process: plain (logits only) and with every layer's
attention and values kept as numpy arrays (what an analysis reads). SinkScope
is model_benchmark's BM_ForwardPlain and BM_ForwardFullCapture (the same token
ids, both cores). The matrix-product rate is torch's float32 matmul of the MLP's
shape [T, 768] x [768, 3072], measured in the same run; each forward is also
given as GFLOP/s (its multiply-adds counted: projections, MLP, attention,
output head) and as a share of that rate.

  /usr/bin/python3 tests/benchmarks/forward_compare.py [--lengths 64,256,1024] [--reps 5]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import pipeline_compare  # noqa: E402  (the same eager forward as the pipeline)


def token_ids(T):
    return [(i * 7919 + 13) % 50257 for i in range(T)]  # as model_benchmark's ids()


def forward_flops(T, D=768, L=12, V=50257, F=3072):
    per_layer = 2 * T * (3 * D * D + D * D + 2 * D * F) + 2 * 2 * T * T * D
    return L * per_layer + 2 * T * D * V


def median_time(fn, reps):
    fn()  # warm-up
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "tests", "model_benchmark"))
    ap.add_argument("--folder", default=os.path.join(tempfile.gettempdir(), "sinkscope-bench-gpt2-small"))
    ap.add_argument("--lengths", default="64,256,1024")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]

    # SinkScope first (it writes the folder when missing).
    names = "|".join(str(T) for T in lengths)
    out = subprocess.run([args.bench, f"--benchmark_filter=BM_Forward(Plain|FullCapture)/({names})/",
                          "--benchmark_format=json"], check=True, capture_output=True, text=True).stdout
    ours = {}
    for b in json.loads(out)["benchmarks"]:
        kind, T = b["name"].split("/")[0], int(b["name"].split("/")[1])
        scale = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "s": 1.0}[b["time_unit"]]
        ours[(kind, T)] = b["real_time"] * scale

    import torch
    threads = os.cpu_count() or 1
    torch.set_num_threads(threads)
    model = pipeline_compare.load_gpt2(args.folder)
    print(f"machine: {threads} cores (torch threads {threads}), load average "
          f"{os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    print("T | torch plain | torch keep | SinkScope plain | SinkScope capture | torch/ours plain | "
          "torch keep/ours capture | capture/plain (ours) | matmul GFLOP/s | ours GFLOP/s (share)")
    for T in lengths:
        ids = token_ids(T)
        reps = args.reps if T < 1024 else max(2, args.reps // 2)
        plain = median_time(lambda: pipeline_compare.gpt2_run(model, ids, keep=False), reps)
        keep = median_time(lambda: pipeline_compare.gpt2_run(model, ids, keep=True), reps)
        a, b = torch.randn(T, 768), torch.randn(768, 3072)
        mm = median_time(lambda: [a @ b for _ in range(10)], reps) / 10
        rate = 2 * T * 768 * 3072 / mm / 1e9
        op, oc = ours[("BM_ForwardPlain", T)], ours[("BM_ForwardFullCapture", T)]
        ours_rate = forward_flops(T) / op / 1e9
        print(f"{T} | {plain * 1e3:.0f} ms | {keep * 1e3:.0f} ms | {op * 1e3:.0f} ms | {oc * 1e3:.0f} ms | "
              f"{plain / op:.2f}x | {keep / oc:.2f}x | {oc / op:.2f} | {rate:.0f} | "
              f"{ours_rate:.0f} ({100 * ours_rate / rate:.0f}%)", flush=True)
    print(f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
