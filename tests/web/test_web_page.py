"""A run's web page in a real browser (Debian's chromium, headless): written
by `sinkscope-cli analyze --html`, opened from disk with a layer, head and
cell chosen by the URL's fragment, its DOM read back after the page says it
is drawn. The numbers shown are analyze's (its CSV tables of the same run),
the cell's weight is the run's within the stated quantisation step, and the
page looks as its baseline does (a share of pixels may differ)."""

import csv
import html.parser
import io
import os
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

from chromium import CHROMIUM, browser

CLI = os.environ["SINKSCOPE_CLI"]
SOURCE = os.environ["SINKSCOPE_SOURCE_DIR"]
MODEL = os.path.join(SOURCE, "resources", "models", "rope-decoder-bos-first")
BASELINE = os.path.join(SOURCE, "tests", "baselines", "web_page.png")
CANDIDATES = os.environ.get("SINKSCOPE_CANDIDATE_DIR", tempfile.gettempdir())
TEXT = "The cat sat on the mat because it was tired."
STEP = 1.0 / 255.0  # the page's byte per weight


class Dom(html.parser.HTMLParser):
    """Every element's attributes, by tag, in document order."""

    def __init__(self):
        super().__init__()
        self.elements = []
        self.text = {}
        self._open = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        self._open.append(len(self.elements) - 1)

    def handle_endtag(self, tag):
        if self._open:
            self._open.pop()

    def handle_data(self, data):
        for k in self._open:
            self.text[k] = self.text.get(k, "") + data

    def find(self, tag=None, **attrs):
        return [a for t, a in self.elements
                if (tag is None or t == tag) and all(a.get(k) == v for k, v in attrs.items())]


def table(folder, name):
    text = open(os.path.join(folder, name), encoding="utf-8").read()
    rows = list(csv.DictReader(io.StringIO("\n".join(
        line for line in text.splitlines() if not line.startswith("#")))))
    return rows


@pytest.fixture(scope="module")
def page():
    if CHROMIUM is None:
        pytest.fail("chromium is not installed (installer/install-deps.sh installs it)")
    folder = tempfile.mkdtemp(prefix="sinkscope-web-")
    html_file = os.path.join(folder, "run.html")
    subprocess.run([CLI, "analyze", MODEL, "--text", TEXT, "--no-weight-spectra", "--out",
                    os.path.join(folder, "tables"), "--html", html_file],
                   check=True, capture_output=True)
    npz = os.path.join(folder, "run.npz")
    subprocess.run([CLI, "tensors", MODEL, "--text", TEXT, "--out", npz], check=True,
                   capture_output=True)
    yield folder, html_file, dict(np.load(npz))
    shutil.rmtree(folder)


def dom_of(html_file, fragment):
    out = browser("--dump-dom", "file://" + html_file + "#" + fragment)
    dom = Dom()
    dom.feed(out.stdout.decode("utf-8"))
    return dom


def test_the_page_shows_analyzes_numbers_for_the_head_its_address_names(page):
    folder, html_file, run = page
    layer, head, query, key = 1, 2, 5, 0
    dom = dom_of(html_file, "layer=%d&head=%d&query=%d&key=%d" % (layer, head, query, key))
    body = dom.find("body")[0]
    assert body.get("data-ready") == "%d,%d" % (layer, head), body
    assert "data-error" not in body, body
    # The summary: analyze's sink_summary row of this head, to the last digit.
    summary = next(r for r in table(os.path.join(folder, "tables"), "sink_summary.csv")
                   if r["layer"] == str(layer) and r["head"] == str(head))
    shown = {}  # each summary row's key and its cell's full-precision value
    for (tag, attrs) in dom.elements:
        if tag == "tr" and "data-key" in attrs:
            current = attrs["data-key"]
        elif tag == "td" and "data-value" in attrs:
            shown[current] = attrs["data-value"]
    assert len(shown) > 5, shown
    assert float(shown["alpha0"]) == float(summary["alpha0"])
    assert float(shown["boost0"]) == float(summary["boost0"])
    # The cell the address names: the run's weight within half a step.
    readout = dom.find(id="readout")[0]
    assert readout["data-query"] == str(query) and readout["data-key"] == str(key)
    weight = float(run["attention"][layer, head, query, key])
    assert abs(float(readout["data-value"]) - weight) <= STEP / 2 + 1e-9
    # Key importance: every key's alpha_k as analyze's sinks.csv (5 digits drawn).
    sinks = {int(r["key"]): float(r["alpha"])
             for r in table(os.path.join(folder, "tables"), "sinks.csv")
             if r["layer"] == str(layer) and r["head"] == str(head)}
    points = [a for t, a in dom.elements
              if a.get("data-series") == "\u03b1\u2096" and "data-x" in a]
    drawn = {int(float(p["data-x"])): float(p["data-y"]) for p in points}
    assert sorted(drawn) == sorted(sinks) and len(drawn) == len(run["tokens"])
    for k, alpha in sinks.items():
        assert drawn[k] == pytest.approx(alpha, rel=1e-4, abs=1e-9), k


def test_another_head_and_a_plain_address(page):
    _, html_file, _ = page
    dom = dom_of(html_file, "layer=3&head=0")
    assert dom.find("body")[0].get("data-ready") == "3,0"
    # No fragment: the page opens on a head of its own choosing, drawn.
    out = browser("--dump-dom", "file://" + html_file)
    plain = Dom()
    plain.feed(out.stdout.decode("utf-8"))
    assert plain.find("body")[0].get("data-ready")


def test_the_page_looks_as_its_baseline(page):
    import matplotlib.image
    _, html_file, _ = page
    shot = os.path.join(CANDIDATES, "web_page.actual.png")
    os.makedirs(CANDIDATES, exist_ok=True)
    browser("--screenshot=" + shot, "--window-size=1400,2200",
            "file://" + html_file + "#layer=1&head=2&query=5&key=0")
    actual = matplotlib.image.imread(shot)[..., :3]
    expected = matplotlib.image.imread(BASELINE)[..., :3]
    assert actual.shape == expected.shape, (actual.shape, expected.shape, shot)
    differing = np.mean(np.abs(actual - expected).max(axis=-1) > 96 / 255)
    assert differing < 0.01, "%.2f%% of pixels differ; the page as drawn: %s" % (
        100 * differing, shot)
    os.remove(shot)
