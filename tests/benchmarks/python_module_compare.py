#!/usr/bin/python3
"""sinkscope.analyze from numpy against the numpy + networkx + GUDHI pipeline.

Both analyse the same arrays in one process: 144 heads (12 layers x 12 heads)
of causal softmax attention at each T, with values of d = 64 (seeded random
scores; a sink-like first column). SinkScope is `sinkscope.analyze(attention,
values=values)`: every table of `sinkscope-cli analyze` (all heads and each
layer's head average, the F_N curve over every N, the taxonomy, sign flip and
layer summaries). The reference is pipeline_compare.py's per-head pipeline
(sink metric and set, diagnostics, GUDHI Rips persistence H0/H1 and Betti
curves, networkx Laplacians at four thresholds, the value-space curve with 64
random subsets), for every head and each layer's average; it computes less
than SinkScope, so the ratio understates SinkScope's lead. At large T the
reference may be timed on the first --python-heads heads and scaled to 144
(said in the output). The machine's load is printed with the results.

  PYTHONPATH=build/python /usr/bin/python3 tests/benchmarks/python_module_compare.py
  ... --lengths 64,256 --python-heads 24
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pipeline_compare  # noqa: E402  (the reference pipeline, numpy + networkx + GUDHI)

import sinkscope  # noqa: E402


def arrays(T, layers=12, heads=12, d=64, seed=11):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(layers, heads, T, T))
    s[..., 0] += 3.0  # a first-token sink, as trained models have
    s = np.where(np.tril(np.ones((T, T))) > 0, s, -np.inf)
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    return a.astype(np.float32), rng.normal(size=(layers, heads, T, d)).astype(np.float32)


def reference(attention, values, heads_timed):
    rows = {k: [] for k in ("sinks", "alpha", "diagnostics", "persistence", "betti", "spectra",
                            "curve")}
    rng = np.random.default_rng(7)
    L, H = attention.shape[:2]
    done = 0
    start = time.perf_counter()
    for l in range(L):
        for h in range(H):
            if done == heads_timed:
                break
            A = attention[l, h].astype(np.float64)
            pipeline_compare.analyse_head(A, rows)
            pipeline_compare.value_space_curve(A[-1], values[l, h].astype(np.float64), rng, rows)
            done += 1
            if done % H == 0:  # each layer's head average, as SinkScope does
                pipeline_compare.analyse_head(attention[l].astype(np.float64).mean(0), rows)
    return time.perf_counter() - start, done


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lengths", default="64,256")
    parser.add_argument("--python-heads", type=int, default=144,
                        help="heads the reference is timed on at T > 64 (scaled to 144)")
    args = parser.parse_args()
    print("load average before: %.2f %.2f %.2f" % os.getloadavg())
    for T in (int(x) for x in args.lengths.split(",")):
        attention, values = arrays(T)
        start = time.perf_counter()
        sinkscope.analyze(attention, values=values)
        ours = time.perf_counter() - start
        heads = 144 if T <= 64 else min(144, args.python_heads)
        theirs, timed = reference(attention, values, heads)
        scaled = theirs * 144 / timed
        note = "" if timed == 144 else f" (timed on {timed} heads, scaled to 144)"
        print(f"T = {T}: sinkscope.analyze {ours:.2f} s, numpy + networkx + GUDHI "
              f"{scaled:.1f} s{note}: {scaled / ours:.0f}x")
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
