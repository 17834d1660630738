"""The Python module as a researcher uses it: its tables equal
sinkscope-cli analyze's CSV cell for cell, a capture it saves opens through
the CLI with the model run's tables, the function-level entries agree with
independent numpy and GUDHI computations, bad input raises ValueError or
TypeError naming the argument, and 10,000 calls leak nothing."""

import csv
import io
import itertools
import os
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

import sinkscope

CLI = os.environ["SINKSCOPE_CLI"]
MODEL = os.path.join(os.environ["SINKSCOPE_SOURCE_DIR"], "resources", "models",
                     "rope-decoder-bos-first")
TEXT = "The cat sat on the mat because it was warm."


def body(text):
    """A CSV without its "# ..." header lines (they name the source)."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("#"))


@pytest.fixture(scope="module")
def run():
    """A model run's capture (sinkscope-cli tensors) and analyze --text's files."""
    folder = tempfile.mkdtemp(prefix="sinkscope-python-")
    npz = os.path.join(folder, "run.npz")
    subprocess.run([CLI, "tensors", MODEL, "--text", TEXT, "--out", npz], check=True,
                   capture_output=True)
    subprocess.run([CLI, "analyze", MODEL, "--text", TEXT, "--no-weight-spectra", "--out",
                    os.path.join(folder, "text")], check=True, capture_output=True)
    yield folder, dict(np.load(npz))
    shutil.rmtree(folder)


def cli_tables(folder):
    return {name[:-4]: open(os.path.join(folder, name), encoding="utf-8").read()
            for name in os.listdir(folder) if name.endswith(".csv")}


def test_every_table_equals_the_clis_cell_for_cell(run):
    folder, z = run
    tables = sinkscope.analyze(z["attention"], values=z["values"], tokens=list(z["tokens"]))
    cli = cli_tables(os.path.join(folder, "text"))
    assert sorted(tables) == sorted(cli)
    for name, table in tables.items():
        assert body(table.text) == body(cli[name]), name
        # Columns as numpy arrays, read back from the same cells.
        header = body(cli[name]).splitlines()[0].split(",")
        assert list(table.columns) == header
    alpha = tables["sinks"]["alpha"]
    assert alpha.dtype == np.float64 and len(alpha) == len(tables["sinks"])
    assert ("sink_metric_eps", "0.3") in tables["sinks"].header


def test_hugging_faces_per_layer_tuple_gives_the_same_tables(run):
    _, z = run
    a = z["attention"]
    whole = sinkscope.analyze(a, values=z["values"])
    # output_attentions: one [batch, heads, T, T] per layer; row 1 of a batch of 2.
    noise = np.full_like(a[0][None], 1.0 / a.shape[-1])
    hf = tuple(np.concatenate([noise, a[l][None].astype(np.float64)]) for l in range(a.shape[0]))
    tupled = sinkscope.analyze(hf, values=z["values"], batch=1)
    for name in whole:
        assert body(whole[name].text) == body(tupled[name].text), name


def test_a_transformerlens_per_layer_list_gives_the_same_tables(run):
    _, z = run
    a = z["attention"]
    whole = sinkscope.analyze(a, values=z["values"])
    # TransformerLens's cache: one [heads, T, T] per layer for one sentence.
    listed = sinkscope.analyze([a[l] for l in range(a.shape[0])], values=z["values"])
    for name in whole:
        assert body(whole[name].text) == body(listed[name].text), name


def test_tables_convert_and_display_as_tables(run):
    _, z = run
    t = sinkscope.analyze(z["attention"], values=z["values"])["sink_summary"]
    records = t.to_numpy()
    assert records.dtype.names == tuple(t.columns)
    assert np.array_equal(records["alpha0"], t["alpha0"])
    assert list(records["head"]) == list(t["head"])
    shown = t._repr_html_()
    assert shown.count("<tr>") == len(t) + 1 and "<th>alpha0</th>" in shown
    assert sinkscope.__version__.count(".") == 2


def test_the_package_namespace_and_help_are_its_own():
    public = {name for name in dir(sinkscope) if not name.startswith("_")}
    assert not public & {"np", "csv", "io", "json"}, public
    assert set(sinkscope.__all__) <= public
    doc = sinkscope.Model.run.__doc__
    for intervention in ("drop_first", "remove_sinks", "ablate", "rope_theta", "ntk_scale"):
        assert intervention in doc, intervention


def test_a_saved_capture_opens_through_the_cli_with_the_runs_tables(run):
    folder, z = run
    npz = os.path.join(folder, "saved.npz")
    sinkscope.save_capture(npz, z["attention"], values=z["values"], tokens=list(z["tokens"]),
                           model="rope-decoder-bos-first")
    with pytest.raises(ValueError, match="exists") as refused:
        sinkscope.save_capture(npz, z["attention"])
    # In Python's words: the switch is an argument, not a command-line flag.
    assert "overwrite=True" in str(refused.value) and "--force" not in str(refused.value)
    out = os.path.join(folder, "capture")
    subprocess.run([CLI, "analyze", "--capture", npz, "--out", out], check=True,
                   capture_output=True)
    cli = cli_tables(out)
    text = cli_tables(os.path.join(folder, "text"))
    for name in text:
        assert body(cli[name]) == body(text[name]), name
    assert "# model: rope-decoder-bos-first" in cli["sinks"]


def test_function_entries_agree_with_independent_computations(run):
    _, z = run
    A = z["attention"][2, 1].astype(np.float64)
    T = A.shape[0]
    # sink metric: the mean attention each key receives from the queries that see it.
    alpha = sinkscope.sink_metric(A)
    expected = np.array([A[k:, k].mean() for k in range(T)])
    np.testing.assert_allclose(alpha, expected, rtol=1e-6)
    # persistence: H0 deaths are the minimum spanning tree's edges (Prim, here in
    # numpy); H1 against GUDHI's Rips complex.
    D = 1 - (A + A.T) / 2
    np.fill_diagonal(D, 0)
    inside, edges = {0}, []
    while len(inside) < T:
        best = min((D[i, j], j) for i in inside for j in range(T) if j not in inside)
        edges.append(best[0])
        inside.add(best[1])
    h0, h1 = sinkscope.persistence(A)
    finite = np.sort(h0[:, 1])[: T - 1]
    np.testing.assert_allclose(finite, np.sort(edges), atol=1e-6)
    gudhi = pytest.importorskip("gudhi")
    tree = gudhi.RipsComplex(distance_matrix=D, max_edge_length=1.0).create_simplex_tree(
        max_dimension=2)
    tree.compute_persistence()
    ref = np.array(sorted(tuple(b) for b in tree.persistence_intervals_in_dimension(1)
                          if b[1] - b[0] > 1e-12)).reshape(-1, 2)
    np.testing.assert_allclose(np.array(sorted(map(tuple, h1))).reshape(-1, 2), ref, atol=1e-6)
    # spectrum: the combinatorial Laplacian of (B + B^T) / 2.
    B = ((A >= 0.05) & ~np.eye(T, dtype=bool)).astype(float)
    W = (B + B.T) / 2
    L = np.diag(W.sum(1)) - W
    np.testing.assert_allclose(sinkscope.spectrum(A, 0.05), np.linalg.eigvalsh(L), atol=1e-9)
    vs = sinkscope.value_space(A, z["values"][2, 1], query=T - 1, N=3)
    assert 0 <= vs["precision"] <= 1 and 0 <= vs["f"] <= 1 and len(vs["selected"]) == 3


def _curve_points(run):
    """Each per-head row of value_space_curve.csv with what numpy makes of it:
    the contributions y_j = A[q, j] v_j over the keys the query sees, the top-N
    selection (ties to the lower index) and s_N."""
    folder, z = run
    import csv
    with open(os.path.join(folder, "text", "value_space_curve.csv"), encoding="utf-8") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    A, V = z["attention"].astype(np.float64), z["values"].astype(np.float64)
    for row in rows:
        if row["head"] == "average":
            continue
        l, h, q, N = int(row["layer"]), int(row["head"]), int(row["query"]), int(row["n"])
        w = A[l, h, q, : q + 1]
        y = w[:, None] * V[l, h, : q + 1]
        inside = np.zeros(q + 1, dtype=bool)
        inside[np.argsort(-w, kind="stable")[:N]] = True
        yield row, y, inside, y[inside].sum(0)


def test_leave_one_out_columns_agree_with_numpy(run):
    """value_space_curve.csv's leave-one-out control (metrics.md s. 6) against
    its definition in numpy, for every head of every layer and every N."""
    checked = 0
    for row, y, inside, s in _curve_points(run):
        N = int(row["n"])
        dist = np.linalg.norm(y - s, axis=1)
        loo = np.array([np.linalg.norm(y[i] - (s - y[i])) for i in np.flatnonzero(inside)])
        gamma = dist[~inside].min() - loo.max() if (~inside).any() else np.inf
        assert float(row["loo_margin"]) == pytest.approx(gamma, rel=1e-9, abs=1e-9)

        def cos(u, v):
            return u @ v / (np.linalg.norm(u) * np.linalg.norm(v))
        if N == 1:
            assert row["positive_loo_share"] == "" and row["loo_alignment_margin"] == ""
            continue
        selected = np.array([cos(y[i], s - y[i]) for i in np.flatnonzero(inside)])
        assert float(row["positive_loo_share"]) == pytest.approx((selected > 0).mean(), abs=1e-12)
        if not (~inside).any():
            assert row["loo_alignment_margin"] == ""
            continue
        others = np.array([cos(y[j], s) for j in np.flatnonzero(~inside)])
        assert float(row["loo_alignment_margin"]) == pytest.approx(
            selected.mean() - others.mean(), abs=1e-9)
        checked += 1
    assert checked > 100


def test_sink_columns_agree_with_numpy(run):
    """value_space_curve.csv's sink diagnostics and random precision/recall
    columns (metrics.md s. 6) against their definitions in numpy, for every
    head of every layer and every N."""
    def cos(u, v):
        nu, nv = np.linalg.norm(u), np.linalg.norm(v)
        return u @ v / (nu * nv) if nu > 0 and nv > 0 else 0.0
    seen = {"selected": 0, "unselected": 0}
    for row, y, inside, s in _curve_points(run):
        N = int(row["n"])
        D = ((y - s) ** 2).sum(1)
        assert row["sink_selected"] == ("1" if inside[0] else "0")
        plus = s - (y[0] if inside[0] else 0)
        if np.linalg.norm(plus) > 1e-6 * (np.linalg.norm(s) + np.linalg.norm(y[0])):
            assert float(row["sink_alignment_selected"]) == pytest.approx(
                cos(y[0], plus), abs=1e-9)
        if inside[0]:
            seen["selected"] += 1
            assert row["sink_intrusion"] == "" and row["sink_inverted_share"] == ""
            assert float(row["sink_share_of_aggregate"]) == pytest.approx(
                np.linalg.norm(y[0]) / np.linalg.norm(s), rel=1e-9)
            if N > 1:
                assert float(row["sink_direction_change"]) == pytest.approx(
                    1 - cos(s, s - y[0]), abs=1e-9)
        else:
            seen["unselected"] += 1
            assert row["sink_share_of_aggregate"] == "" and row["sink_direction_change"] == ""
            # Checked away from ties (SinkScope counts distances within a relative tie as equal).
            tie = 1e-6 * ((y ** 2).sum(1).max() + s @ s)
            r2 = D[inside].max()
            if abs(D[0] - r2) > tie:
                assert row["sink_intrusion"] == ("1" if D[0] <= r2 else "0")
            if np.all(np.abs(D[inside] - D[0]) > tie):
                assert float(row["sink_inverted_share"]) == pytest.approx(
                    (D[inside] > D[0]).sum() / N, abs=1e-12)
        for column in ("random_precision_mean", "random_recall_mean"):
            assert 0.0 <= float(row[column]) <= 1.0
    assert seen["selected"] > 20 and seen["unselected"] > 20, seen


def test_privileged_key_columns_agree_with_numpy(run):
    """value_space_curve.csv's trajectories against the sink and the current
    token (004, Fig. 4b; metrics.md s. 6) against numpy: cos(s_N, v_0),
    cos(s_N, v_q) and ||s_N - y_k|| / ||s_N|| (1 when k is not selected)."""
    folder, z = run
    V = z["values"].astype(np.float64)
    checked = 0
    for row, y, inside, s in _curve_points(run):
        l, h, q = int(row["layer"]), int(row["head"]), int(row["query"])
        for k, cosine, removed in ((0, "sink_value_cosine", "sink_removed_norm"),
                                   (q, "current_value_cosine", "current_removed_norm")):
            v = V[l, h, k]
            expected = s @ v / (np.linalg.norm(s) * np.linalg.norm(v))
            assert float(row[cosine]) == pytest.approx(expected, abs=1e-9)
            left = np.linalg.norm(s - y[k]) if inside[k] else np.linalg.norm(s)
            assert float(row[removed]) == pytest.approx(left / np.linalg.norm(s), abs=1e-9)
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("call, error, words", [
    (lambda: sinkscope.analyze("hello"), TypeError,
     "attention: an array of real numbers is needed, not of strings"),
    (lambda: sinkscope.analyze(None), TypeError, "attention"),
    (lambda: sinkscope.analyze(np.ones((2, 3, 4))), ValueError, "attention: give [layers"),
    (lambda: sinkscope.analyze(np.ones((1, 1, 2, 3)) / 3), ValueError, "square"),
    (lambda: sinkscope.analyze(np.full((1, 1, 3, 3), np.nan)), ValueError, "row 0, column 0] is not a number"),
    (lambda: sinkscope.analyze(np.array([[1.0, 0], [-0.5, 1.5]])), ValueError, "is -0.5"),
    (lambda: sinkscope.analyze(np.array([[0.5, 0], [0.5, 0.5]])), ValueError, "row 0] sums to 0.5"),
    (lambda: sinkscope.analyze(np.eye(3), values=np.ones((3, 2, 2))), ValueError, "values: give"),
    (lambda: sinkscope.analyze(np.eye(3), tokens=[1, 2, 3]), TypeError, "tokens"),
    (lambda: sinkscope.analyze(np.eye(3), tokens=["a"]), ValueError,
     "tokens: 1 given for attention over 3 tokens"),
    (lambda: sinkscope.analyze(np.eye(3), top_m=2), TypeError, "no parameter 'top_m'"),
    (lambda: sinkscope.analyze(np.eye(3), gamma=2), ValueError, "gamma"),
    (lambda: sinkscope.analyze(np.eye(3), betti_points=100001), ValueError, "betti_points"),
    (lambda: sinkscope.analyze(np.eye(3), symmetrise="min"), ValueError, "symmetrise"),
    (lambda: sinkscope.analyze(np.eye(3), query=3), ValueError, "query"),
    (lambda: sinkscope.analyze((np.eye(3)[None, None],), batch=1), ValueError, "batch"),
    (lambda: sinkscope.analyze(np.eye(3).astype(complex)), TypeError, "not of complex numbers"),
    (lambda: sinkscope.analyze(np.array([["1", "0"], ["0.5", "0.5"]])), TypeError,
     "not of strings"),
    (lambda: sinkscope.analyze(np.eye(3), values=np.ones((3, 0))), ValueError, "head_dim is 0"),
    (lambda: sinkscope.analyze(np.eye(3), thresholds=itertools.repeat(0.1)), ValueError,
     "1 to 32 thresholds"),
    (lambda: sinkscope.analyze(np.tile(np.eye(16), (16, 16, 1, 1)), betti_points=100000),
     ValueError, "27200000 rows of betti.csv"),
    (lambda: sinkscope.analyze(np.eye(3), tokens=[b"a", b"b", b"c"]), TypeError, "not bytes"),
    (lambda: sinkscope.analyze(np.eye(3), tokens=["a", "b\0", "c"]), ValueError,
     "token 1 holds a NUL character"),
    (lambda: sinkscope.save_capture(os.devnull + ".npz", np.eye(3), model="m" * 2000), ValueError,
     "the model's name is not one line"),
    (lambda: sinkscope.analyze(np.eye(3), tokens=["a", "x" * 5000, "c"]), ValueError,
     "token 1 is 5000 characters long"),
    (lambda: sinkscope.analyze(np.eye(3), tokens=["a", "\ud800", "c"]), ValueError,
     "tokens: token 1 is not valid Unicode"),
    (lambda: sinkscope.analyze(np.eye(3), **{"\udc80": 1}), ValueError, "is not valid Unicode"),
    (lambda: sinkscope.analyze(np.eye(3), seed=-1), ValueError, "seed: -1 is outside [0, 2147483647]"),
    (lambda: sinkscope.persistence(np.ones((2, 2, 2))), ValueError, "A: give one head"),
    (lambda: sinkscope.spectrum(np.eye(3), theta=2), ValueError, "theta"),
    (lambda: sinkscope.value_space(np.eye(3), np.ones((2, 4))), ValueError, "V: give"),
])
def test_bad_input_names_the_argument(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_ten_thousand_calls_leak_nothing():
    def resident_kib():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    A = np.tril(np.ones((16, 16)))
    A /= A.sum(1, keepdims=True)
    for _ in range(500):  # warm up allocator pools
        sinkscope.sink_metric(A)
    before = resident_kib()
    for _ in range(10000):
        sinkscope.sink_metric(A)
        sinkscope.persistence(A)
        try:
            sinkscope.analyze(np.ones((2, 2, 2)))
        except ValueError:
            pass
    grown = resident_kib() - before
    assert grown < 8 * 1024, "resident memory grew %d KiB over 10,000 calls" % grown


def test_a_models_run_is_the_tensors_of_sinkscope_cli(run):
    _, z = run
    model = sinkscope.Model(MODEL)
    assert (model.layers, model.heads) == (4, 4)
    r = model.run(TEXT)
    assert list(r.tokens) == list(z["tokens"])
    np.testing.assert_array_equal(r.ids, z["ids"])
    for name in ("attention", "values", "queries", "keys", "residual"):
        np.testing.assert_array_equal(getattr(r, name), z[name], err_msg=name)
    logits = r.logits
    assert logits.shape == (len(r.tokens), 4096) and not logits.flags["OWNDATA"]
    with pytest.raises(ValueError):
        logits[0, 0] = 1.0  # the run's own numbers, read-only
    del model, r  # the view keeps its run alive
    assert np.isfinite(logits).all()
    dropped = sinkscope.Model(MODEL).run(TEXT, drop_first=True)
    assert dropped.attention.shape[-1] == len(z["tokens"]) - 1
    tables = sinkscope.analyze(dropped.attention, values=dropped.values, tokens=dropped.tokens)
    assert len(tables["sinks"]) > 0


@pytest.mark.parametrize("call, error, words", [
    (lambda: sinkscope.Model("/nonexistent/folder"), ValueError, "/nonexistent/folder"),
    (lambda: sinkscope.Model(MODEL).run(""), ValueError, "empty"),
    (lambda: sinkscope.Model(MODEL).run("x", ablate=[(9, 0)]), ValueError, "layer 9"),
    (lambda: sinkscope.Model(MODEL).run("x", frob=1), TypeError, "no intervention 'frob'"),
    (lambda: sinkscope.Model(MODEL, threads=0), ValueError, "threads"),
])
def test_bad_model_input_names_the_problem(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_the_largest_thread_count_finishes():
    # The documented maximum, far above the cores: the pass and analysis end.
    r = sinkscope.Model(MODEL, threads=1024).run(TEXT)
    assert np.isfinite(r.attention).all()
    assert len(sinkscope.analyze(r.attention, tokens=r.tokens)["sinks"]) > 0


def long_attention(layers=8, heads=8, T=192, seed=3):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(layers, heads, T, T)) * 3
    s = np.where(np.tril(np.ones((T, T))) > 0, s, -np.inf)
    a = np.exp(s - s.max(-1, keepdims=True))
    return a / a.sum(-1, keepdims=True)


def test_progress_is_reported_and_ctrl_c_stops_a_long_analysis():
    seen = []
    sinkscope.analyze(long_attention(layers=2, heads=2, T=48), progress=seen.append)
    assert seen and all(0 <= f <= 1 for f in seen) and seen == sorted(seen)
    with pytest.raises(TypeError, match="progress"):
        sinkscope.analyze(np.eye(3), progress=5)
    import _thread
    import threading
    import time
    big = long_attention()
    timer = threading.Timer(0.5, _thread.interrupt_main)
    started = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        sinkscope.analyze(big)
    timer.join()
    assert time.monotonic() - started < 60


LIBTORCH_LOADED = ("import sinkscope\n"
                   "print('libtorch' in open('/proc/self/maps').read())\n")


def loads_libtorch(code):
    """Whether a fresh Python, after running `code`, has libtorch mapped."""
    out = subprocess.run(["/usr/bin/python3", "-c", code + "\n" + LIBTORCH_LOADED],
                         check=True, capture_output=True, text=True,
                         env=dict(os.environ)).stdout.split()
    return out[-1] == "True"


def test_libtorch_is_loaded_only_when_a_model_runs():
    """Analyses of arrays load no libtorch (the model runtime is a module loaded
    on first use); a model's run does."""
    assert not loads_libtorch(
        "import numpy as np, sinkscope\n"
        "a = np.tril(np.ones((1, 2, 6, 6), np.float32))\n"
        "a /= a.sum(-1, keepdims=True)\n"
        "sinkscope.analyze(a)\n"
        "sinkscope.persistence(a[0, 0])\n")
    assert loads_libtorch(
        "import sinkscope\n"
        "sinkscope.Model(%r).run(%r)\n" % (MODEL, TEXT))


def test_a_nul_in_a_path_is_refused_and_nothing_replaced():
    """A NUL ends a name in the system's calls: 'victim.txt\\0.npz' must not
    replace victim.txt."""
    folder = tempfile.mkdtemp(prefix="sinkscope-nul-")
    victim = os.path.join(folder, "victim.txt")
    with open(victim, "w") as f:
        f.write("keep me")
    A = np.tril(np.ones((1, 1, 3, 3), np.float32))
    A /= A.sum(-1, keepdims=True)
    with pytest.raises(ValueError) as caught:
        sinkscope.save_capture(victim + "\0.npz", A, overwrite=True)
    assert "path: holds a NUL character" in str(caught.value)
    with pytest.raises(ValueError) as caught:
        sinkscope.Model(MODEL + "\0x")
    assert "folder: holds a NUL character" in str(caught.value)
    assert open(victim).read() == "keep me"
    assert os.listdir(folder) == ["victim.txt"]
    shutil.rmtree(folder)


def test_a_saved_capture_keeps_its_tokens_without_padding_them():
    """numpy pads fixed-width strings to the longest: one long token among
    two hundred short ones is written packed (tokens_utf8, tokens_offsets)
    and read back as given."""
    folder = tempfile.mkdtemp(prefix="sinkscope-tokens-")
    T = 200
    A = np.tril(np.ones((1, 1, T, T), np.float32))
    A /= A.sum(-1, keepdims=True)
    tokens = ["t%d" % k for k in range(T)]
    tokens[7] = "\u00e9" * 4000
    path = os.path.join(folder, "c.npz")
    sinkscope.save_capture(path, A, tokens=tokens)
    z = np.load(path)
    assert "tokens_utf8" in z and "tokens" not in z
    at = z["tokens_offsets"]
    assert [bytes(z["tokens_utf8"][at[k]:at[k + 1]]).decode() for k in range(T)] == tokens
    # The map's 160 kB and the tokens' bytes; padded, the tokens alone were 3.2 MB.
    assert os.path.getsize(path) < 4 * T * T + 1000000
    out = os.path.join(folder, "out")
    subprocess.run([CLI, "analyze", "--capture", path, "--out", out], check=True,
                   capture_output=True)
    sinks = open(os.path.join(out, "sinks.csv"), encoding="utf-8").read()
    assert "\u00e9" * 4000 in sinks
    shutil.rmtree(folder)


def test_tokens_holding_line_breaks_and_separators_keep_the_tables_whole():
    """A token may hold anything but NUL: a line break before "#", U+2028,
    \\x1c, \\x85 and \\x0b (line ends to str.splitlines) neither cut a row nor
    start a header line."""
    tokens = ["a\n# b", "c\u2028d", "e\x1cf", "g\x85h", "i\x0bj\r\nk"]
    A = np.tril(np.ones((1, 1, 5, 5)))
    A /= A.sum(-1, keepdims=True)
    tables = sinkscope.analyze(A, tokens=tokens)
    sinks = tables["sinks"]
    assert len(sinks) == 10  # the head average's five keys, then head 0's
    assert list(sinks["key_token"][:5]) == tokens
    assert list(sinks["key"][:5]) == [0, 1, 2, 3, 4]
    assert all(key != "" and not key.startswith(" ") for key, _ in sinks.header)


def test_views_are_the_windows_panels_with_analyzes_rows(run):
    folder, z = run
    tokens = list(z["tokens"])
    v = sinkscope.views(z["attention"], values=z["values"], tokens=tokens, model="tiny",
                        layer=1, head=2)
    assert v["selection"] == {"layer": 1, "head": 2, "query": len(tokens) - 1, "threshold": 0.05}
    panels = v["panels"]
    assert {"attention-map", "key-importance", "overview", "persistence", "spectrum", "graph",
            "layer-profiles", "head-view", "taxonomy", "value-space"} <= set(panels)
    assert [view["kind"] for view in panels["persistence"]] == ["plot", "plot", "plot"]
    # What is drawn is the analysis: alpha_k of the head's map.
    key = panels["key-importance"][0]
    A = z["attention"][1, 2]
    np.testing.assert_allclose(key["series"][0]["y"], sinkscope.sink_metric(A), rtol=1e-12)
    assert key["series"][0]["labels"] == tokens
    assert [s["style"] for s in key["series"]] == ["line", "reference", "threshold"]
    heat = panels["attention-map"][0]
    assert heat["rows"] == heat["cols"] == len(tokens)
    np.testing.assert_allclose(np.array(heat["values"], dtype=float).reshape(A.shape), A,
                               rtol=1e-6)
    # The numbers are analyze's rows for that head.
    tables = sinkscope.analyze(z["attention"], values=z["values"], tokens=tokens)
    for panel, index, table in (("persistence", 0, "persistence"), ("key-importance", 0, "sinks"),
                                ("persistence", 2, "betti")):
        numbers = panels[panel][index]["numbers"]
        rows = list(csv.reader(io.StringIO(body(tables[table].text))))
        assert numbers["columns"] == rows[0], table
        layer, head = rows[0].index("layer"), rows[0].index("head")
        mine = [r for r in rows[1:] if r[layer] == "1" and r[head] == "2"]
        assert numbers["rows"] == mine, table
    # The head average and bad selections.
    average = sinkscope.views(z["attention"], tokens=tokens, layer=0, head=-1)
    assert "value-space" not in average["panels"]
    assert average["panels"]["key-importance"][0]["title"].endswith("head average")
    for bad, words in (({"layer": 99}, "layer: 99 is outside"), ({"head": 9}, "head: 9"),
                       ({"query": 999}, "query: 999"), ({"threshold": 2}, "threshold")):
        with pytest.raises(ValueError, match=words):
            sinkscope.views(z["attention"], tokens=tokens, **bad)
