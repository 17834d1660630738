#!/usr/bin/python3
"""Corpus-study throughput: `sinkscope-cli study run` + `study merge` against the
Python study a researcher would write, in sentences per second.

Both run on the GPT-2-small-shaped folder of pipeline_compare.py (12 x 12 heads,
d = 768, 50,257 words, random weights) over the same sentences of exactly
--tokens tokens (default 64: held-out sentences of resources/examples joined
and cut to that many tokens, as Gu et al. measured). The Python study is
Debian's python3-torch (eager forward, every layer's attention and values
kept), numpy, networkx and GUDHI; per sentence and head it computes what the
study pools:

  sink set (90th percentile, gamma 0.3), alpha_0, sink concentration,
  taxonomy votes (argmax_j A[i][j] ||v_j||), persistence H0/H1 (GUDHI Rips) and
  the bars above 0.05, F_N at the last query with N = 3 and 64 random subsets;
  per layer, the head-averaged graph's Fiedler value and degree centralisation
  at 0.01, 0.05, 0.1, 0.2 (networkx);

then pools them (specialisation, sink rate and boost, taxonomy shares, layer
profiles) with 200 bootstrap resamples of the sentences, and writes CSVs.
SinkScope does more per head (Betti curves, both Laplacians at every threshold
for every head, head diagnostics, the sink-aware bound), so the ratio
understates its lead. Each side is one fresh process over the whole sentence
file, timed wall-clock including the model load; rates are sentences / second.

  /usr/bin/python3 tests/benchmarks/study_compare.py                 # 32 + 8 sentences
  /usr/bin/python3 tests/benchmarks/study_compare.py --sentences 64 --python-sentences 16

Packages: python3-torch python3-gudhi python3-networkx python3-numpy.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import pipeline_compare as pc  # noqa: E402  (the forward pass and the harness)


# ---------------------------------------------------------------- the Python study

def head_record(A, V, rng, K=64, N=3):
    import gudhi
    import numpy as np
    T = A.shape[0]
    visible = np.tril(np.ones((T, T), dtype=bool))
    tau = np.percentile(A[visible], 90)
    freq = ((A >= tau) & (A > 0)).sum(0) / T
    sinks = np.nonzero(freq >= 0.3)[0]
    alpha = A.sum(0) / (T - np.arange(T))
    pairs = visible.copy()
    pairs[0, 0] = False
    total = A[pairs].sum()
    on_sinks = A[:, sinks][pairs[:, sinks]].sum() if len(sinks) else 0.0
    concentration = 100.0 * on_sinks / total if total > 0 else 0.0
    norms = np.linalg.norm(V, axis=1)
    votes = [0, 0, 0]
    for i in range(1, T):
        j = int(np.argmax(A[i, :i + 1] * norms[:i + 1]))
        votes[0 if j == 0 else (1 if j == i else 2)] += 1
    dist = 1.0 - (A + A.T) / 2.0
    np.fill_diagonal(dist, 0.0)
    st = gudhi.RipsComplex(distance_matrix=dist, max_edge_length=1.0).create_simplex_tree(
        max_dimension=2)
    st.compute_persistence()
    bars = []
    for dim in (0, 1):
        b = np.array(st.persistence_intervals_in_dimension(dim)).reshape(-1, 2)
        b[np.isinf(b)] = 1.0
        bars.append(int(((b[:, 1] - b[:, 0]) > 0.05).sum()))
    # F_N at the last query and its random baseline.
    y = A[-1][:, None] * V
    sq = (y * y).sum(1)

    def f_score(S):
        s = S.astype(float) @ y
        D = sq[None, :] - 2 * s @ y.T + (s * s).sum(1)[:, None]
        dmax = np.where(S, D, -np.inf).max(1)
        dmin = np.where(S, np.inf, D).min(1)
        precision = S.sum(1) / (D <= dmax[:, None]).sum(1)
        recall = (S & (D < dmin[:, None])).sum(1) / S.sum(1)
        return np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0)

    top = np.zeros((1, T), dtype=bool)
    top[0, np.argsort(-A[-1], kind="stable")[:N]] = True
    S = np.zeros((K, T), dtype=bool)
    for s in range(K):
        S[s, rng.choice(T, N, replace=False)] = True
    return {"sinks": sinks.tolist(), "alpha0": float(alpha[0]), "conc": concentration,
            "votes": votes, "bars": bars, "f": float(f_score(top)[0]), "fr": float(f_score(S).mean())}


def layer_graph(A, thresholds=(0.01, 0.05, 0.1, 0.2)):
    import networkx as nx
    import numpy as np
    T = A.shape[0]
    out = []
    for theta in thresholds:
        B = (A >= theta) & ~np.eye(T, dtype=bool)
        G = nx.from_numpy_array((B + B.T) / 2.0)
        ev = np.linalg.eigvalsh(nx.laplacian_matrix(G).toarray())
        indeg = B.sum(0)
        out.append((float(ev[1]), float((indeg.max() - indeg).sum() / (T - 1) ** 2)))
    return out


def python_study(folder, sentences_ids, out):
    import csv
    import numpy as np
    import torch
    torch.set_num_threads(os.cpu_count() or 1)
    model = pc.load_gpt2(folder)
    rng = np.random.default_rng(7)
    records = []
    for ids in sentences_ids:
        attentions, values, _ = pc.gpt2_run(model, ids)
        T = len(ids)
        baseline = sum(1.0 / k for k in range(1, T + 1)) / T
        heads, layers = [], []
        for A_layer, V_layer in zip(attentions, values):
            hs = [head_record(A_layer[h], V_layer[h], rng) for h in range(A_layer.shape[0])]
            heads.extend(hs)
            graph = layer_graph(A_layer.mean(0))
            layers.append([np.mean([h["conc"] for h in hs]), np.mean([h["alpha0"] for h in hs]),
                           np.mean([h["alpha0"] / baseline for h in hs]),
                           np.mean([h["bars"][0] for h in hs]), np.mean([h["bars"][1] for h in hs]),
                           np.mean([h["f"] for h in hs]), np.mean([h["fr"] for h in hs])]
                          + [x for pair in graph for x in pair])
        records.append({"heads": heads, "layers": np.array(layers), "baseline": baseline})
    # Pooling, with 200 bootstrap resamples of the sentences for the profiles and the sink rate.
    S, nheads = len(records), len(records[0]["heads"])
    profile = np.stack([r["layers"] for r in records])          # S x L x metrics
    alpha0 = np.array([[h["alpha0"] for h in r["heads"]] for r in records])  # S x heads
    has_sink = np.array([[len(h["sinks"]) > 0 for h in r["heads"]] for r in records])
    votes = np.array([[h["votes"] for h in r["heads"]] for r in records])     # S x heads x 3
    draws = [rng.integers(0, S, S) for _ in range(200)]
    boot = np.stack([profile[d].mean(0) for d in draws])
    rate = [(alpha0[d] > 0.3).mean() * 100 for d in draws]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "layer_profile.csv"), "w", newline="") as f:
        w = csv.writer(f)
        mean, lo, hi = profile.mean(0), np.percentile(boot, 2.5, 0), np.percentile(boot, 97.5, 0)
        for l in range(mean.shape[0]):
            for m in range(mean.shape[1]):
                w.writerow([l, m, mean[l, m], lo[l, m], hi[l, m]])
    with open(os.path.join(out, "pooled.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["sink_rate", (alpha0 > 0.3).mean() * 100, *np.percentile(rate, [2.5, 97.5])])
        share = has_sink.mean(0)
        totals = votes.sum(0)
        for k in range(nheads):
            w.writerow([k, share[k], share[k] >= 0.8, *(totals[k] / max(1, totals[k].sum()))])


# ---------------------------------------------------------------- the harness

def sentences_of_length(cli, folder, T, count):
    """`count` texts of exactly T tokens: held-out sentences joined from line i
    on, cut to the shortest prefix with T tokens (a binary search per text, all
    texts tokenized in one call per step)."""
    lines = [l.strip() for l in open(os.path.join(ROOT, "resources", "examples", "sentences.txt"))
             if l.strip()]
    bases = [" ".join(lines[i:] + lines[:i])[: T * 12] for i in range(count)]
    lo, hi = [1] * count, [len(b) for b in bases]
    work = tempfile.mkdtemp(prefix="sinkscope-study-tokens-")
    batch = os.path.join(work, "batch.txt")

    def lengths(texts):
        with open(batch, "w") as f:
            f.write("\n".join(json.dumps(t) for t in texts) + "\n")
        out = subprocess.run([cli, "tokens", folder, "--batch", batch], check=True,
                             capture_output=True, text=True).stdout
        return [len(json.loads(line)) for line in out.splitlines()]

    while any(l < h for l, h in zip(lo, hi)):
        mids = [(l + h) // 2 for l, h in zip(lo, hi)]
        for i, n in enumerate(lengths([b[:m] for b, m in zip(bases, mids)])):
            if lo[i] < hi[i]:
                if n < T:
                    lo[i] = mids[i] + 1
                else:
                    hi[i] = mids[i]
    texts = [b[:l] for b, l in zip(bases, lo)]
    if any(n != T for n in lengths(texts)):
        sys.exit(f"not every text tokenizes to exactly {T} tokens")
    return texts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "sinkscope-cli"))
    ap.add_argument("--folder", default=os.path.join(tempfile.gettempdir(), "sinkscope-bench-gpt2-cli"))
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--sentences", type=int, default=32, help="sentences SinkScope's study runs")
    ap.add_argument("--python-sentences", type=int, default=8, help="sentences the Python study runs")
    ap.add_argument("--python-run", nargs=2, metavar=("IDS_JSON", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.python_run:
        python_study(args.folder, json.load(open(args.python_run[0])), args.python_run[1])
        return
    pc.ensure_folder(args.cli, args.folder)
    work = tempfile.mkdtemp(prefix="sinkscope-study-compare-")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} "
          f"{os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} at start")
    texts = sentences_of_length(args.cli, args.folder, args.tokens,
                                max(args.sentences, args.python_sentences))
    ours_file = os.path.join(work, "sentences.txt")
    with open(ours_file, "w") as f:
        f.write("\n".join(texts[: args.sentences]) + "\n")
    ids_file = os.path.join(work, "ids.json")
    quoted = os.path.join(work, "quoted.txt")  # `tokens --batch` reads one JSON string per line
    with open(quoted, "w") as f:
        f.write("\n".join(json.dumps(t) for t in texts[: max(args.sentences, args.python_sentences)]) + "\n")
    ids = [json.loads(line) for line in subprocess.run(
        [args.cli, "tokens", args.folder, "--batch", quoted], check=True, capture_output=True,
        text=True).stdout.splitlines()]
    python_ids = ids[: args.python_sentences]
    json.dump(python_ids, open(ids_file, "w"))
    # Warm the page cache with the weights, as for any second run.
    pc.run_measured([args.cli, "analyze", args.folder, "--text", texts[0], "--out",
                     os.path.join(work, "warm"), "--force", "--no-weight-spectra"])

    study = os.path.join(work, "study")
    start = time.perf_counter()
    wall_run, rss = pc.run_measured([args.cli, "study", "run", args.folder, "--sentences", ours_file,
                                     "--out", study])
    wall_merge, _ = pc.run_measured([args.cli, "study", "merge", study])
    ours = time.perf_counter() - start
    ours_rate = args.sentences / ours
    print(f"SinkScope: {args.sentences} sentences of {args.tokens} tokens in {ours:.1f} s "
          f"(run {wall_run:.1f} s, merge {wall_merge:.2f} s, peak {rss:.0f} MiB): "
          f"{ours_rate:.2f} sentences/s", flush=True)
    theirs, prss = pc.run_measured([pc.DEBIAN_PYTHON, os.path.abspath(__file__), "--folder",
                                    args.folder, "--python-run", ids_file,
                                    os.path.join(work, "python")])
    theirs_rate = len(python_ids) / theirs
    print(f"Python:    {len(python_ids)} sentences of {args.tokens} tokens in {theirs:.1f} s "
          f"(peak {prss:.0f} MiB): {theirs_rate:.3f} sentences/s", flush=True)
    print(f"throughput ratio SinkScope / Python: {ours_rate / theirs_rate:.1f}x")
    print(f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
