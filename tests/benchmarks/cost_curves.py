#!/usr/bin/env python3
"""Cost of `sinkscope-cli analyze` as the work grows: wall time, CPU time and
peak memory against the input length T and against the model's size.

Each point is a fresh process (`analyze MODEL --text - --out DIR --force
--no-weight-spectra`), timed wall-clock, with its CPU time and peak RSS from
wait4(). The text of each length is the held-out sentences cut to exactly T
tokens of the model's tokenizer (found with `sinkscope-cli tokens`). The load
average at the start of each run is recorded beside it.

    # the length sweep: the Llama-3.2-1B shape with its real per-layer shapes
    build/app/sinkscope-cli random-model --like llama-3.2-1b /tmp/l1b2 --layers 2
    /usr/bin/python3 tests/benchmarks/cost_curves.py lengths /tmp/l1b2 \\
        --lengths 64,128,256,512,1024,2048,4096 --csv lengths.csv
    # the size sweep at T = 128: name=folder pairs, smallest first
    /usr/bin/python3 tests/benchmarks/cost_curves.py sizes \\
        builtin=resources/models/rope-decoder-bos-first gpt2=/tmp/gpt2 1b=/tmp/l1b \\
        --length 128 --csv sizes.csv
    # the figure (docs/performance-cost-curves.png)
    /usr/bin/python3 tests/benchmarks/cost_curves.py plot --lengths-csv lengths.csv \\
        --sizes-csv sizes.csv --png docs/performance-cost-curves.png

Slopes are least-squares fits of log(time) on log(T) (or log(weights)) over
the points at or above --fit-from (default 256 tokens) and --fit-from-gib
(default 1 GiB of weights), marked with a dot in the figure.
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "build" / "app" / "sinkscope-cli"
SENTENCES = ROOT / "resources" / "examples" / "sentences.txt"


def token_count(cli, model, text):
    out = subprocess.run([str(cli), "tokens", str(model), "--text", text], capture_output=True,
                         text=True, check=True).stdout
    return len([line for line in out.splitlines() if line.strip()])


def text_of_length(cli, model, tokens):
    """The held-out sentences (repeated as needed) cut to exactly `tokens` tokens."""
    words = SENTENCES.read_text().split()
    source = " ".join(words * (1 + tokens // max(1, len(words) // 2)))
    lo, hi = 1, len(source)
    while lo < hi:  # the shortest prefix with at least `tokens` tokens
        mid = (lo + hi) // 2
        if token_count(cli, model, source[:mid]) >= tokens:
            hi = mid
        else:
            lo = mid + 1
    text = source[:lo]
    got = token_count(cli, model, text)
    if got != tokens:
        sys.exit(f"no prefix of the sentences has exactly {tokens} tokens (closest: {got})")
    return text


def weight_bytes(model):
    return sum(f.stat().st_size for f in Path(model).glob("*.safetensors"))


def measure(cli, model, text, threads):
    with tempfile.TemporaryDirectory() as out:
        load = os.getloadavg()[0]
        start = time.monotonic()
        args = [str(cli), "analyze", str(model), "--text", "-", "--out", out, "--force",
                "--no-weight-spectra"]
        if threads:
            args += ["--threads", str(threads)]
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        proc.stdin.write(text)
        proc.stdin.close()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        err = proc.stderr.read()
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"analyze failed: {err}")
        # "persistence left out for N maps (...)": the maps, not the lines.
        left_out = sum(int(n) for n in re.findall(r"persistence left out for (\d+) maps?", err))
        return {"wall_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
                "peak_mib": round(usage.ru_maxrss / 1024.0, 1), "load": round(load, 2),
                "persistence_left_out": left_out}


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def sweep_lengths(a):
    rows = []
    for T in [int(x) for x in a.lengths.split(",")]:
        text = text_of_length(a.cli, a.model, T)
        row = {"tokens": T, "weights_mib": round(weight_bytes(a.model) / 2**20, 1)}
        row.update(measure(a.cli, a.model, text, a.threads))
        print(row, flush=True)
        rows.append(row)
        write_csv(a.csv, rows)  # kept after every point: a long sweep can be stopped


def sweep_sizes(a):
    rows = []
    for spec in a.models:
        name, _, folder = spec.partition("=")
        text = text_of_length(a.cli, folder, a.length)
        row = {"model": name, "tokens": a.length,
               "weights_mib": round(weight_bytes(folder) / 2**20, 1)}
        row.update(measure(a.cli, folder, text, a.threads))
        print(row, flush=True)
        rows.append(row)
        write_csv(a.csv, rows)


def slope(xs, ys):
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    sxx = sum((x - mx) ** 2 for x in lx)
    return sum((x - mx) * (y - my) for x, y in zip(lx, ly)) / sxx if sxx > 0 else float("nan")


def plot(a):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lengths = list(csv.DictReader(open(a.lengths_csv)))
    sizes = list(csv.DictReader(open(a.sizes_csv)))
    fig, axes = plt.subplots(2, 2, figsize=(7.0, 5.4), constrained_layout=True)
    styles = (("wall_s", "wall time", "o-"), ("cpu_s", "CPU time", "s--"))

    def times(ax, xs, rows, fit):
        for key, label, style in styles:
            ys = [float(r[key]) for r in rows]
            k = slope([xs[i] for i in fit], [ys[i] for i in fit]) if len(fit) >= 2 else math.nan
            ax.loglog(xs, ys, style, markersize=4, label=f"{label}: slope {k:.2f}")
        ax.set_ylabel("seconds")
        ax.legend(fontsize=7, loc="upper left", title="slope: fit over the points marked •",
                  title_fontsize=7)

    def memory(ax, xs, rows, weights):
        ax.plot(xs, [float(r["peak_mib"]) / 1024 for r in rows], "^-", color="tab:green",
                markersize=4, label="peak resident memory")
        ax.plot(xs, weights, ":", color="grey", label="weights on disk")
        ax.set_ylabel("GiB")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=7, loc="upper left")

    T = [int(r["tokens"]) for r in lengths]
    fitT = [i for i, t in enumerate(T) if t >= a.fit_from]
    times(axes[0][0], T, lengths, fitT)
    for t, r in zip(T, lengths):  # a point whose persistence stopped early did less work
        if int(r.get("persistence_left_out") or 0) > 0:
            axes[0][0].annotate(f"T = {t}: persistence left out\nfor {r['persistence_left_out']} maps",
                                (t, float(r["wall_s"])), textcoords="axes fraction",
                                xytext=(0.97, 0.06), ha="right", va="bottom", fontsize=7,
                                arrowprops={"arrowstyle": "->", "lw": 0.6, "color": "0.3"})
    axes[0][0].set_title(f"(a) time against T ({a.lengths_title})", fontsize=8)
    memory(axes[1][0], T, lengths, [float(r["weights_mib"]) / 1024 for r in lengths])
    axes[1][0].set_xscale("log")
    axes[1][0].set_title("(c) peak memory against T", fontsize=8)
    axes[1][0].set_xlabel("tokens T")
    axes[0][0].set_xlabel("tokens T")

    W = [float(r["weights_mib"]) / 1024 for r in sizes]
    fitW = [i for i, w in enumerate(W) if w >= a.fit_from_gib]
    times(axes[0][1], W, sizes, fitW)
    for r, w in zip(sizes, W):
        axes[0][1].annotate(r["model"], (w, float(r["wall_s"])), textcoords="offset points",
                            xytext=(0, 6), ha="center", fontsize=7)
    axes[0][1].margins(x=0.15, y=0.2)
    axes[0][1].set_title(f"(b) time against model size (T = {sizes[0]['tokens']})", fontsize=8)
    axes[0][1].set_xlabel("weights on disk (GiB)")
    memory(axes[1][1], W, sizes, W)
    axes[1][1].set_xscale("log")
    axes[1][1].margins(x=0.15)
    axes[1][1].set_title("(d) peak memory against model size", fontsize=8)
    axes[1][1].set_xlabel("weights on disk (GiB)")
    for row in axes:
        for ax in row:
            ax.tick_params(labelsize=7)
            ax.xaxis.label.set_size(8)
            ax.yaxis.label.set_size(8)
    for ax, fit, xs, rows in ((axes[0][0], fitT, T, lengths), (axes[0][1], fitW, W, sizes)):
        for i in fit:  # the fitted points filled, the others hollow
            for key, _, _ in styles:
                ax.plot([xs[i]], [float(rows[i][key])], "o", markersize=2, color="black")
    fig.savefig(a.png, dpi=200)
    print(a.png)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cli", type=Path, default=CLI)
    p.add_argument("--threads", type=int, default=0, help="--threads of analyze (0: its default)")
    sub = p.add_subparsers(dest="what", required=True)
    s = sub.add_parser("lengths")
    s.add_argument("model")
    s.add_argument("--lengths", default="64,128,256,512,1024,2048")
    s.add_argument("--csv", required=True)
    s = sub.add_parser("sizes")
    s.add_argument("models", nargs="+", help="name=folder, smallest first")
    s.add_argument("--length", type=int, default=128)
    s.add_argument("--csv", required=True)
    s = sub.add_parser("plot")
    s.add_argument("--lengths-csv", required=True)
    s.add_argument("--sizes-csv", required=True)
    s.add_argument("--lengths-title", default="Llama-3.2-1B shape, 2 layers")
    s.add_argument("--fit-from", type=int, default=256, help="tokens")
    s.add_argument("--fit-from-gib", type=float, default=1.0, help="weights, GiB")
    s.add_argument("--png", required=True)
    a = p.parse_args()
    {"lengths": sweep_lengths, "sizes": sweep_sizes, "plot": plot}[a.what](a)


if __name__ == "__main__":
    main()
