#!/usr/bin/python3
"""SinkScope's `analyze` against the Python pipeline a researcher would write.

Both run on the same GPT-2-small-shaped folder (12 layers x 12 heads, d = 768,
50,257 words, random weights written by `sinkscope-cli random-model`) and the
same token ids at each length T. The Python pipeline is Debian's python3-torch
(eager forward, every layer's attention and values kept, logits as
`model(ids, output_attentions=True)` returns them), numpy, networkx and GUDHI:

  per layer, for every head and the head average:
    sink metric alpha_k, sink set (90th percentile, gamma 0.3), head diagnostics
    persistence H0/H1 of d = 1 - (A + A^T) / 2 (GUDHI Rips, dimension 2), Betti curves
    Laplacian spectra (networkx, both Laplacians) at thresholds 0.01, 0.05, 0.1, 0.2
  per head: value space at N = 3 and the F_N curve over every N, 64 random subsets
  writes the tables as CSV

It leaves out what SinkScope computes beyond that (K_N^sink, the taxonomy,
sign-flip and layer summaries, weight spectra), so the ratio understates
SinkScope's lead. Runs are interleaved (SinkScope, Python, SinkScope, ...);
each is a fresh process, timed wall-clock, with its peak RSS from wait4().

Persistence alone, at each T: one map of the same run (layer 0, head 0) as a
distance matrix, timed in SinkScope (analysis_benchmark's BM_PersistenceFile),
Debian's `ripser` command (median of 5; the start of a ripser process on a
2-point matrix subtracted) and GUDHI (up to T = 256).

  /usr/bin/python3 tests/benchmarks/pipeline_compare.py         # T = 64, 256, 1024
  /usr/bin/python3 tests/benchmarks/pipeline_compare.py --lengths 64 --reps 5
  /usr/bin/python3 tests/benchmarks/pipeline_compare.py --python-max-length 256  # default

Packages: python3-torch python3-gudhi python3-networkx python3-numpy (installer/
install-bench-deps.sh). The machine's load is printed with the results.
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
# Debian's interpreter, where python3-torch and friends are installed (a pyenv
# python3 earlier on PATH does not see them).
DEBIAN_PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
BASE_TEXT = "attention sinks are tokens that receive a large share of attention whatever their meaning "


# ---------------------------------------------------------------- the Python pipeline

def load_safetensors(path):
    import numpy as np
    import torch
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
    raw = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        a, b = info["data_offsets"]
        assert info["dtype"] == "F32", name
        arr = np.frombuffer(raw[a:b], dtype=np.float32).reshape(info["shape"])
        out[name.removeprefix("transformer.")] = torch.from_numpy(arr.copy())
    return out


def load_gpt2(folder):
    """The folder's hyperparameters and weights as torch tensors (loaded once)."""
    cfg = json.load(open(os.path.join(folder, "config.json")))
    W = load_safetensors(os.path.join(folder, "model.safetensors"))
    return (cfg["n_embd"], cfg["n_head"], cfg["n_layer"], cfg["layer_norm_epsilon"]), W


def gpt2_run(model, ids, keep=True):
    """Eager forward of GPT-2; with `keep`, every layer's attention and values
    are kept as float64 numpy arrays (what the analysis reads)."""
    import torch
    import torch.nn.functional as F
    (D, H, L, eps), W = model
    d, T = D // H, len(ids)
    with torch.inference_mode():
        x = W["wte.weight"][torch.tensor(ids)] + W["wpe.weight"][:T]
        mask = torch.full((T, T), float("-inf")).triu(1)
        attentions, values = [], []
        for l in range(L):
            p = f"h.{l}."
            h = F.layer_norm(x, (D,), W[p + "ln_1.weight"], W[p + "ln_1.bias"], eps)
            q, k, v = (h @ W[p + "attn.c_attn.weight"] + W[p + "attn.c_attn.bias"]).split(D, -1)
            q, k, v = (t.view(T, H, d).transpose(0, 1) for t in (q, k, v))
            a = torch.softmax(q @ k.transpose(-1, -2) / d ** 0.5 + mask, -1)
            if keep:
                attentions.append(a.numpy().astype("float64"))
                values.append(v.numpy().astype("float64"))
            o = (a @ v).transpose(0, 1).reshape(T, D)
            x = x + o @ W[p + "attn.c_proj.weight"] + W[p + "attn.c_proj.bias"]
            h = F.layer_norm(x, (D,), W[p + "ln_2.weight"], W[p + "ln_2.bias"], eps)
            m = F.gelu(h @ W[p + "mlp.c_fc.weight"] + W[p + "mlp.c_fc.bias"], approximate="tanh")
            x = x + m @ W[p + "mlp.c_proj.weight"] + W[p + "mlp.c_proj.bias"]
        x = F.layer_norm(x, (D,), W["ln_f.weight"], W["ln_f.bias"], eps)
        head = W.get("lm_head.weight", W["wte.weight"])
        logits = x @ head.T
    return attentions, values, logits


def gpt2_forward(folder, ids):
    return gpt2_run(load_gpt2(folder), ids)


def analyse_head(A, rows):
    import gudhi
    import networkx as nx
    import numpy as np
    T = A.shape[0]
    visible = np.tril(np.ones((T, T), dtype=bool))
    alpha = A.sum(0) / (T - np.arange(T))
    tau = np.percentile(A[visible], 90)
    freq = ((A >= tau) & (A > 0)).sum(0) / T
    rows["sinks"].append([int(k) for k in np.nonzero(freq >= 0.3)[0]])
    rows["alpha"].append(alpha.tolist())
    P = np.where(visible, A, 1.0)
    entropy = -(np.where(visible, A * np.log(P), 0.0)).sum(1)
    rows["diagnostics"].append([entropy[-1], A[-1].max(), A[-1, 0], A[-1, -1],
                                entropy[1:].mean()])
    dist = 1.0 - (A + A.T) / 2.0
    np.fill_diagonal(dist, 0.0)
    st = gudhi.RipsComplex(distance_matrix=dist, max_edge_length=1.0).create_simplex_tree(
        max_dimension=2)
    st.compute_persistence()
    grid = np.linspace(0, 1, 101)
    for dim in (0, 1):
        bars = np.array(st.persistence_intervals_in_dimension(dim)).reshape(-1, 2)
        bars[np.isinf(bars)] = 1.0
        rows["persistence"].append(bars.tolist())
        rows["betti"].append([int(((bars[:, 0] <= e) & (bars[:, 1] > e)).sum()) for e in grid])
    for theta in (0.01, 0.05, 0.1, 0.2):
        B = (A >= theta) & ~np.eye(T, dtype=bool)
        G = nx.from_numpy_array((B + B.T) / 2.0)
        for L in (nx.laplacian_matrix(G), nx.normalized_laplacian_matrix(G)):
            ev = np.linalg.eigvalsh(L.toarray())
            rows["spectra"].append([theta, ev[1] if T > 1 else 0.0] + ev.tolist())


def value_space_curve(a_row, V, rng, rows, K=64):
    import numpy as np
    y = a_row[:, None] * V  # contributions of the keys the last query sees
    n = y.shape[0]
    norms = (y * y).sum(1)
    order = np.argsort(-a_row, kind="stable")

    def scores(S):  # S: subsets x n booleans
        s = S.astype(float) @ y
        D = norms[None, :] - 2 * s @ y.T + (s * s).sum(1)[:, None]
        dmax = np.where(S, D, -np.inf).max(1)
        dmin = np.where(S, np.inf, D).min(1)
        inclosed = (D <= dmax[:, None]).sum(1)
        precision = S.sum(1) / inclosed
        recall = (S & (D < dmin[:, None])).sum(1) / S.sum(1)
        f = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0)
        return precision, recall, f, D

    for N in range(1, n + 1):
        top = np.zeros((1, n), dtype=bool)
        top[0, order[:N]] = True
        p, r, f, D = scores(top)
        inside, outside = np.sort(D[0, top[0]]), np.sort(D[0, ~top[0]])
        inversions = int(np.searchsorted(outside, inside, side="right").sum())
        S = np.zeros((K, n), dtype=bool)
        for s in range(K):
            S[s, rng.choice(n, N, replace=False)] = True
        rp, rr, rf, _ = scores(S)
        rows["curve"].append([N, p[0], r[0], f[0], rf.mean(), rf.std(), inversions])


def python_pipeline(folder, ids, out):
    import csv
    import numpy as np
    import torch
    torch.set_num_threads(os.cpu_count() or 1)
    attentions, values, logits = gpt2_forward(folder, ids)
    rows = {k: [] for k in ("sinks", "alpha", "diagnostics", "persistence", "betti", "spectra",
                            "curve")}
    rng = np.random.default_rng(7)
    for A_layer, V_layer in zip(attentions, values):
        for h in range(A_layer.shape[0]):
            analyse_head(A_layer[h], rows)
            value_space_curve(A_layer[h][-1], V_layer[h], rng, rows)
        analyse_head(A_layer.mean(0), rows)
    os.makedirs(out, exist_ok=True)
    for name, table in rows.items():
        with open(os.path.join(out, name + ".csv"), "w", newline="") as f:
            csv.writer(f).writerows(table if name != "persistence" else
                                    [sum(t, []) for t in table])
    np.save(os.path.join(out, "logits_shape.npy"), np.array(logits.shape))


# ---------------------------------------------------------------- the harness

def ensure_folder(cli, folder):
    """The GPT-2-small-shaped random-weight folder, written once."""
    if not os.path.exists(os.path.join(folder, "model.safetensors")):
        subprocess.run([cli, "random-model", "gpt2", folder, "--layers", "12", "--heads",
                        "12", "--hidden", "768", "--intermediate", "3072", "--vocab", "50257",
                        "--weight-std", "0.02", "--positions", "1024"], check=True,
                       stdout=subprocess.DEVNULL)


def run_measured(cmd):
    """Wall time and peak RSS (MiB) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{err}")
    return wall, usage.ru_maxrss / 1024.0


def token_ids(cli, folder, text):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(json.dumps(text) + "\n")
    try:
        out = subprocess.run([cli, "tokens", folder, "--batch", f.name], check=True,
                             capture_output=True, text=True).stdout
    finally:
        os.unlink(f.name)
    return json.loads(out.splitlines()[0])


def text_of_length(cli, folder, T):
    """The shortest prefix of a repeated sentence that tokenizes to T tokens."""
    base = BASE_TEXT * (T // 4 + 8)
    lo, hi = 1, len(base)
    while lo < hi:
        mid = (lo + hi) // 2
        if len(token_ids(cli, folder, base[:mid])) < T:
            lo = mid + 1
        else:
            hi = mid
    text = base[:lo]
    ids = token_ids(cli, folder, text)
    if len(ids) != T:
        sys.exit(f"no prefix tokenizes to exactly {T} tokens")
    return text, ids


def persistence_alone(cli, folder, ids, work, bench):
    """Persistence of one map of this model (layer 0, head 0, d = 1 - (A + A^T) / 2) by
    SinkScope (analysis_benchmark's BM_PersistenceFile), Debian's ripser (the command,
    its process start subtracted) and GUDHI, on the same matrix: seconds each."""
    import numpy as np
    attentions, _, _ = gpt2_run(load_gpt2(folder), ids)
    A = attentions[0][0]
    T = A.shape[0]
    d = 1.0 - (A + A.T) / 2.0
    np.fill_diagonal(d, 0.0)
    ours_file = os.path.join(work, f"distances-{T}.txt")
    with open(ours_file, "w") as f:
        f.write(f"{T}\n" + "\n".join(" ".join(repr(float(x)) for x in row) for row in d) + "\n")
    lower = os.path.join(work, f"lower-{T}.txt")
    with open(lower, "w") as f:
        f.write("\n".join(",".join(repr(float(x)) for x in d[i, :i]) for i in range(1, T)) + "\n")
    tiny = os.path.join(work, "lower-2.txt")
    with open(tiny, "w") as f:
        f.write("0.5\n")

    def ripser(path, reps):
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            subprocess.run(["ripser", "--dim", "1", "--format", "lower-distance", path], check=True,
                           stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    reps = 5 if T <= 256 else 1
    ripser_s = max(0.0, ripser(lower, reps) - ripser(tiny, 5))
    out = subprocess.run([bench, "--benchmark_filter=BM_PersistenceFile", "--benchmark_format=json"],
                         env=dict(os.environ, SINKSCOPE_BENCH_DISTANCES=ours_file), check=True,
                         capture_output=True, text=True).stdout
    b = json.loads(out)["benchmarks"][0]
    ours_s = b["real_time"] * {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "s": 1.0}[b["time_unit"]]
    gudhi_s = None
    if T <= 256:  # GUDHI needs minutes per map beyond
        import gudhi
        start = time.perf_counter()
        st = gudhi.RipsComplex(distance_matrix=d, max_edge_length=1.0).create_simplex_tree(
            max_dimension=2)
        st.compute_persistence()
        gudhi_s = time.perf_counter() - start
    return ours_s, ripser_s, gudhi_s


def ratio_line(label, ours, theirs):
    r = sorted(t / o for o, t in zip(ours, theirs))
    return f"{label}: ratio Python / SinkScope min {r[0]:.1f}x, median {statistics.median(r):.1f}x, max {r[-1]:.1f}x"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "sinkscope-cli"))
    ap.add_argument("--folder", default=os.path.join(tempfile.gettempdir(), "sinkscope-bench-gpt2-cli"))
    ap.add_argument("--lengths", default="64,256,1024")
    ap.add_argument("--reps", type=int, default=3, help="interleaved pairs per length")
    ap.add_argument("--python-max-length", type=int, default=256,
                    help="longer inputs run SinkScope only (GUDHI alone needs hours at 1024)")
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "tests", "analysis_benchmark"),
                    help="for persistence alone (BM_PersistenceFile)")
    ap.add_argument("--no-persistence-alone", action="store_true",
                    help="skip timing persistence alone (ours, ripser, GUDHI) on one map")
    ap.add_argument("--print-text", type=int, metavar="T",
                    help="print the text of exactly T tokens the runs use, and stop")
    ap.add_argument("--python-run", nargs=2, metavar=("IDS_JSON", "OUT"), help=argparse.SUPPRESS)
    ap.add_argument("--persistence-run", nargs=2, metavar=("IDS_JSON", "WORK"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.python_run:
        python_pipeline(args.folder, json.load(open(args.python_run[0])), args.python_run[1])
        return
    if args.persistence_run:  # in a process of its own: the model it loads must not
        # inflate the peak RSS of the processes the harness forks later
        print(json.dumps(persistence_alone(args.cli, args.folder,
                                           json.load(open(args.persistence_run[0])),
                                           args.persistence_run[1], args.bench)))
        return

    ensure_folder(args.cli, args.folder)
    if args.print_text:
        print(text_of_length(args.cli, args.folder, args.print_text)[0])
        return
    work = tempfile.mkdtemp(prefix="sinkscope-compare-")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} "
          f"{os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} at start")
    print(f"folder: {args.folder}")
    # Warm-up: the page cache holds the weights and the weight-spectra cache is
    # filled (model-level work, done once per model), as for any second run.
    text16, _ = text_of_length(args.cli, args.folder, 16)
    run_measured([args.cli, "analyze", args.folder, "--text", text16, "--out",
                  os.path.join(work, "warm"), "--force"])

    for T in [int(x) for x in args.lengths.split(",")]:
        text, ids = text_of_length(args.cli, args.folder, T)
        ids_file = os.path.join(work, f"ids-{T}.json")
        json.dump(ids, open(ids_file, "w"))
        ours, theirs = [], []
        for rep in range(args.reps):
            ours.append(run_measured([args.cli, "analyze", args.folder, "--text", text, "--out",
                                      os.path.join(work, f"ours-{T}"), "--force"]))
            if T <= args.python_max_length:
                theirs.append(run_measured([DEBIAN_PYTHON, os.path.abspath(__file__), "--folder",
                                            args.folder, "--python-run", ids_file,
                                            os.path.join(work, f"python-{T}")]))
            print(f"T = {T}, pair {rep + 1}: SinkScope {ours[-1][0]:.2f} s ({ours[-1][1]:.0f} MiB)"
                  + (f", Python {theirs[-1][0]:.2f} s ({theirs[-1][1]:.0f} MiB)" if theirs else ""),
                  flush=True)
        walls = [w for w, _ in ours]
        print(f"T = {T}: SinkScope median {statistics.median(walls):.2f} s "
              f"(min {min(walls):.2f}, max {max(walls):.2f}), peak RSS {max(r for _, r in ours):.0f} MiB")
        if theirs:
            pw = [w for w, _ in theirs]
            print(f"T = {T}: Python median {statistics.median(pw):.2f} s (min {min(pw):.2f}, "
                  f"max {max(pw):.2f}), peak RSS {max(r for _, r in theirs):.0f} MiB")
            print(ratio_line(f"T = {T}", walls, pw))
        if not args.no_persistence_alone:
            ours_p, ripser_p, gudhi_p = json.loads(subprocess.run(
                [DEBIAN_PYTHON, os.path.abspath(__file__), "--folder", args.folder, "--cli", args.cli,
                 "--bench", args.bench, "--persistence-run", ids_file, work],
                check=True, capture_output=True, text=True).stdout)
            line = (f"T = {T}, persistence alone (layer 0, head 0): SinkScope {ours_p * 1e3:.1f} ms, "
                    f"ripser {ripser_p * 1e3:.1f} ms ({ripser_p / ours_p:.1f}x)")
            if gudhi_p is not None:
                line += f", GUDHI {gudhi_p * 1e3:.1f} ms ({gudhi_p / ours_p:.1f}x)"
            print(line, flush=True)
    print(f"load average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
