"""A property sweep of the Python module's inputs: arrays of every dtype,
rank, layout and odd value; tokens of every type; parameters at and past
their edges. Each call must return a well-formed result or raise ValueError
or TypeError with a message: never another exception, a crash or a hang.
Seeded, so a failure names a case that reproduces."""

import math
import os
import random
import tempfile

import numpy as np
import pytest

import sinkscope

CASES = 400


def stochastic(T, causal, rng):
    a = rng.random((T, T)) + 1e-3
    if causal:
        a = np.tril(a)
    return a / a.sum(-1, keepdims=True)


def odd_array(rng, T):
    """An attention-like input, valid or not."""
    kind = rng.integers(0, 16)
    base = stochastic(T, bool(rng.integers(0, 2)), rng)
    if kind == 0:
        return base.astype(np.float16)
    if kind == 1:
        return base.astype(">f8")  # big-endian
    if kind == 2:
        return np.asfortranarray(base)
    if kind == 3:
        return np.broadcast_to(base, (2, 3, T, T))  # read-only, zero strides
    if kind == 4:
        wide = np.zeros((T, 2 * T))
        wide[:, ::2] = base
        return wide[:, ::2]  # non-contiguous
    if kind == 5:
        return base[::-1, ::-1]  # negative strides (rows no longer sum right, or do)
    if kind == 6:
        bad = base.copy()
        bad[rng.integers(0, T), rng.integers(0, T)] = rng.choice([np.nan, np.inf, -np.inf, -1.0, 2.0, 1e300])
        return bad
    if kind == 7:
        return np.zeros((0, 0)) if rng.integers(0, 2) else np.zeros((1, 1, 0, 0))
    if kind == 8:
        return base.astype(rng.choice([np.int8, np.int64, np.uint16, bool]))
    if kind == 9:
        return base.astype(np.complex64)
    if kind == 10:
        return base.astype(object)
    if kind == 11:
        return np.array([[str(x) for x in row] for row in base])
    if kind == 12:
        return base.reshape((1,) * int(rng.integers(0, 4)) + (T, T))  # ranks 2 to 5
    if kind == 13:
        return base.ravel()
    if kind == 14:
        return [list(row) for row in base]  # a list of lists
    return base.astype(np.float32)


def odd_tokens(rng, T):
    kind = rng.integers(0, 10)
    words = ["t%d" % i for i in range(T)]
    return [
        None,
        words,
        words[:-1],
        [w.encode() for w in words],
        list(range(T)),
        words[:-1] + ["\0"],
        words[:-1] + ["\ud800"],  # a lone surrogate: not encodable as UTF-8
        words[:-1] + ["x" * int(rng.choice([4096, 4097, 100000]))],
        tuple(words),
        np.array(words),
    ][kind]


PARAMS = {
    "percentile": [0, 100, -1, 101, math.nan, "90"],
    "gamma": [0, 1, -0.1, 1.5, math.inf],
    "eps": [0, 1, math.nan, -1],
    "top_n": [1, 0, -1, 10**6, 2**63, 2.5, True],
    "query": [0, -1, -2, 10**9, None],
    "random_subsets": [0, 1, 10**5, 10**6, -1],
    "seed": [0, 2**31 - 1, 2**31, -1],
    "min_persistence": [0, 1, 1.5, math.nan],
    "betti_points": [2, 1, 100000, 100001, 0],
    "symmetrise": ["mean", "max", "min", "", 3],
    "sink_mode": ["percentile", "column-sum", "other"],
    "sink_denominator": ["all", "visible", "none"],
    "thresholds": [[0.1], [], [math.nan], [0.1] * 33, [2.0], "0.1", (0.05, 0.2)],
    "frobnicate": [1],
}


def well_formed(tables):
    assert isinstance(tables, dict) and tables
    for name, table in tables.items():
        assert isinstance(table, sinkscope.Table), name
        lengths = {len(column) for column in table.columns.values()}
        assert len(lengths) <= 1, name  # every column as long as the table


def expect_clean(call):
    try:
        return call()
    except (ValueError, TypeError) as e:
        assert str(e), "an error with no message"
        return None


@pytest.mark.parametrize("case", range(CASES))
def test_analyze_and_the_function_entries_end_cleanly(case):
    rng = np.random.default_rng(case)
    T = int(rng.choice([1, 2, 3, 5, 8]))
    A = odd_array(rng, T)
    kwargs = {}
    for name in rng.choice(sorted(PARAMS), size=int(rng.integers(0, 3)), replace=False):
        values = PARAMS[name]
        kwargs[str(name)] = values[int(rng.integers(0, len(values)))]
    values = None
    if rng.integers(0, 2):
        d = int(rng.choice([0, 1, 4]))
        values = rng.normal(size=(T, d)) if rng.integers(0, 3) else rng.normal(size=(2, 3, T, d))
        if rng.integers(0, 4) == 0:
            values[..., 0:1] = np.nan
    tokens = odd_tokens(rng, T)
    result = expect_clean(lambda: sinkscope.analyze(A, values=values, tokens=tokens, **kwargs))
    if result is not None:
        well_formed(result)
    head = A if isinstance(A, np.ndarray) and A.ndim == 2 else None
    if head is None:
        return
    bars = expect_clean(lambda: sinkscope.persistence(head, bool(rng.integers(0, 2))))
    if bars is not None:
        for dim in bars:
            assert np.all(np.asarray(dim)[:, 1] >= np.asarray(dim)[:, 0]) if len(dim) else True
    theta = float(rng.choice([0.05, 0.0, 1.0, -1.0, math.nan]))
    eigen = expect_clean(lambda: sinkscope.spectrum(head, theta, bool(rng.integers(0, 2))))
    if eigen is not None:
        assert np.all(np.isfinite(eigen))
    alpha = expect_clean(lambda: sinkscope.sink_metric(head))
    if alpha is not None:
        assert np.all(np.isfinite(alpha))
    V = rng.normal(size=(T, int(rng.choice([0, 1, 3]))))
    vs = expect_clean(lambda: sinkscope.value_space(head, V, int(rng.choice([-1, 0, T, 10**9])),
                                                    int(rng.choice([0, 1, 3, 10**9]))))
    if vs is not None:
        assert 0 <= vs["precision"] <= 1 and 0 <= vs["recall"] <= 1


@pytest.mark.parametrize("case", range(CASES // 4))
def test_save_capture_writes_only_what_analyze_reads(case):
    rng = np.random.default_rng(10000 + case)
    T = int(rng.choice([1, 3, 6]))
    A = odd_array(rng, T)
    tokens = odd_tokens(rng, T)
    model = str(rng.choice(["", "m", "m" * 1025, "a\nb", "ok/name"]))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, str(rng.choice(["c.npz", "c", "sub/c.npz", "c\0.npz"])))
        written = expect_clean(lambda: sinkscope.save_capture(path, A, tokens=tokens, model=model) or True)
        if written and os.path.exists(path):
            # What was written reads back through the capture reader the CLI uses.
            with np.load(path) as z:
                assert z["attention"].ndim == 4


MODEL = os.path.join(os.environ.get("SINKSCOPE_SOURCE_DIR", "."), "resources/models/rope-decoder-bos-first")
VALID_TEXTS = ["A cat sat.", "The sink, it seems, sinks.", "é中😀 and more", "\u2028#\n,\""]
TEXTS = VALID_TEXTS * 3 + ["", " ", "\0", "a\0b", "\ud800", "x" * 5000, 42, b"bytes", None, "\u2028#\n,\"", "é中😀"]
INTERVENTIONS = {
    "drop_first": [True, False, "yes", 2, None],
    "ablate": [[(0, 0)], [(0, 99)], [(99, 0)], [(-1, 0)], "x", [(0,)], [(0, 0), (0, 0)], [], [(2**40, 0)]],
    "remove_sinks": [True, False, 3, "all"],
    "rope_theta": [10000.0, 0, -1, math.nan, math.inf, "1"],
    "ntk_scale": [1.0, 0, 1e7, math.nan],
    "bogus": [1],
}


@pytest.fixture(scope="module")
def model():
    return sinkscope.Model(MODEL)


@pytest.mark.parametrize("case", range(150))
def test_a_models_run_ends_cleanly_on_any_text_and_intervention(model, case):
    rng = random.Random(case)
    text = rng.choice(TEXTS)
    kwargs = {}
    for name in rng.sample(sorted(INTERVENTIONS), rng.randint(0, 2)):
        kwargs[name] = rng.choice(INTERVENTIONS[name])
    r = expect_clean(lambda: model.run(text, **kwargs))
    if r is not None:
        T = len(r.tokens)
        assert r.attention.shape[-2:] == (T, T)
        assert np.all(np.isfinite(r.attention))
        np.testing.assert_allclose(r.attention.sum(-1), 1.0, atol=1e-4)


def test_every_declared_setting_is_documented_taken_at_its_ends_and_refused_past_them():
    A = stochastic(5, True, np.random.default_rng(1))
    settings = sinkscope._core.analysis_settings()
    assert [s["name"] for s in settings][:2] == ["percentile", "gamma"]
    for s in settings:
        assert ("\n    %s: " % s["name"]) in sinkscope.analyze.__doc__
        if s["kind"] in ("number", "whole number"):
            hi = min(s["hi"], 4) if s["name"] == "query" else min(s["hi"], 1000)
            for ok in (s["lo"], hi):
                sinkscope.analyze(A, **{s["name"]: int(ok) if s["kind"] == "whole number" else ok})
            with pytest.raises(ValueError, match=s["name"]):
                sinkscope.analyze(A, **{s["name"]: s["hi"] + 1})
        elif s["kind"].startswith("one of "):
            for word in s["kind"][len("one of "):].split(", "):
                sinkscope.analyze(A, **{s["name"]: word})
            with pytest.raises(ValueError, match=s["name"]):
                sinkscope.analyze(A, **{s["name"]: "no-such-word"})
