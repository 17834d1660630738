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

Debian's OpenBLAS 0.3.21 does not recognise some newer CPUs and falls back to
its Prescott kernels; SinkScope then names the right core itself
(models::fix_blas_core). Torch is therefore timed twice, each in its own
process: as installed (OpenBLAS's own detection) and with OPENBLAS_CORETYPE set
to the core SinkScope uses (`sinkscope-cli info`), the fair comparison of the
forward passes themselves; the matmul rate is taken in the second.

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


def torch_times(folder, lengths, reps):
    """Torch eager timings in this process: {T: (plain, keep, matmul GFLOP/s)}."""
    import torch
    torch.set_num_threads(os.cpu_count() or 1)
    model = pipeline_compare.load_gpt2(folder)
    out = {}
    for T in lengths:
        ids = token_ids(T)
        r = reps if T < 1024 else max(2, reps // 2)
        plain = median_time(lambda: pipeline_compare.gpt2_run(model, ids, keep=False), r)
        keep = median_time(lambda: pipeline_compare.gpt2_run(model, ids, keep=True), r)
        a, b = torch.randn(T, 768), torch.randn(768, 3072)
        mm = median_time(lambda: [a @ b for _ in range(10)], r) / 10
        out[T] = (plain, keep, 2 * T * 768 * 3072 / mm / 1e9)
    return out


def torch_in_process(folder, lengths, reps, core):
    env = dict(os.environ)
    if core:
        env["OPENBLAS_CORETYPE"] = core
    else:
        env.pop("OPENBLAS_CORETYPE", None)
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--folder", folder, "--lengths",
                          ",".join(map(str, lengths)), "--reps", str(reps), "--torch-run"],
                         check=True, capture_output=True, text=True, env=env).stdout
    return {int(k): v for k, v in json.loads(out).items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "tests", "model_benchmark"))
    ap.add_argument("--folder", default=os.path.join(tempfile.gettempdir(), "sinkscope-bench-gpt2-small"))
    ap.add_argument("--lengths", default="64,256,1024")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "sinkscope-cli"))
    ap.add_argument("--torch-run", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]

    if args.torch_run:
        print(json.dumps(torch_times(args.folder, lengths, args.reps)))
        return

    # SinkScope first (it writes the folder when missing).
    names = "|".join(str(T) for T in lengths)
    out = subprocess.run([args.bench, f"--benchmark_filter=BM_Forward(Plain|FullCapture)/({names})/",
                          "--benchmark_format=json"], check=True, capture_output=True, text=True).stdout
    ours = {}
    for b in json.loads(out)["benchmarks"]:
        kind, T = b["name"].split("/")[0], int(b["name"].split("/")[1])
        scale = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "s": 1.0}[b["time_unit"]]
        ours[(kind, T)] = b["real_time"] * scale
    info = subprocess.run([args.cli, "info"], check=True, capture_output=True, text=True).stdout
    core = next((l.split(":", 1)[1].strip() for l in info.splitlines()
                 if l.startswith("OpenBLAS core:")), "")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} "
          f"{os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}; SinkScope's OpenBLAS core: {core or 'n/a'}")
    installed = torch_in_process(args.folder, lengths, args.reps, None)
    same = torch_in_process(args.folder, lengths, args.reps, core) if core else installed
    print("T | SinkScope plain | capture | capture/plain | torch as installed: plain, keep | "
          "torch, same core: plain, keep | torch/ours plain (installed, same core) | "
          "torch keep / ours capture (same core) | matmul GFLOP/s (same core) | ours GFLOP/s (share)")
    for T in lengths:
        op, oc = ours[("BM_ForwardPlain", T)], ours[("BM_ForwardFullCapture", T)]
        ip, ik, _ = installed[T]
        sp, sk, rate = same[T]
        ours_rate = forward_flops(T) / op / 1e9
        print(f"{T} | {op * 1e3:.0f} ms | {oc * 1e3:.0f} ms | {oc / op:.2f} | {ip * 1e3:.0f}, {ik * 1e3:.0f} ms | "
              f"{sp * 1e3:.0f}, {sk * 1e3:.0f} ms | {ip / op:.2f}x, {sp / op:.2f}x | {sk / oc:.2f}x | "
              f"{rate:.0f} | {ours_rate:.0f} ({100 * ours_rate / rate:.0f}%)", flush=True)
    print(f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
