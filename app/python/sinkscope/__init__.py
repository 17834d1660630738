"""SinkScope's analyses of attention sinks, from Python.

    import sinkscope
    m = sinkscope.Model("path/to/model")          # or a Hugging Face cache name
    r = m.run("The cat sat.", drop_first=False)   # r.attention [L, H, T, T], r.values, ...
    tables = sinkscope.analyze(attention, values=values, tokens=tokens)
    tables["sinks"].columns["alpha_k"]      # numpy arrays, one per column
    tables["layer_summary"].to_pandas()     # when pandas is installed

``attention`` is a numpy array [layers, heads, T, T] (float32 or float64), the
per-layer tuple Hugging Face's ``output_attentions=True`` returns ([batch,
heads, T, T] each; ``batch`` picks the row), or one head's [T, T]. The tables
are those of ``sinkscope-cli analyze`` (the same code; their CSV text cell for
cell), with the parameters of metrics.md as keyword arguments (each with its range
and default in ``help(sinkscope.analyze)``). Without
``values`` the value-space and taxonomy tables are empty. Bad input raises
ValueError or TypeError naming the argument.
"""

# Private names: the package's namespace is its own API only.
import csv as _csv
import html as _html
import io as _io
import json as _json

import numpy as _np

from . import _core
from ._core import Model, Run, __version__

__all__ = ["Model", "Run", "Table", "View", "analyze", "views", "show", "persistence", "spectrum",
           "sink_metric", "value_space", "save_capture"]


class Table:
    """One table of analyze: ``columns`` maps each column's name to a numpy
    array (float64 where every cell is a number or empty, NaN for empty; else
    strings); ``header`` holds the "# key: value" lines (parameters, source)."""

    def __init__(self, name, text):
        self.name = name
        self.text = text
        self.header = []
        # The "# key: value" lines come first, each ended by "\n" alone (a
        # token's U+2028, \x1c or \x85 ends no line); then CSV records, whose
        # quoted fields may hold any character, a line break or "#" included.
        start = 0
        while text.startswith("#", start):
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            key, _, value = text[start + 1:end].strip(" ").partition(": ")
            self.header.append((key, value))
            start = end + 1
        reader = list(_csv.reader(_io.StringIO(text[start:], newline="")))
        names = reader[0] if reader else []
        body = reader[1:]
        self.columns = {}
        for k, column in enumerate(names):
            cells = [row[k] if k < len(row) else "" for row in body]
            self.columns[column] = _column(cells)

    def __len__(self):
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def __getitem__(self, column):
        return self.columns[column]

    def __repr__(self):
        return "<sinkscope.Table %s: %d rows, columns %s>" % (
            self.name, len(self), ", ".join(self.columns))

    def to_pandas(self):
        import pandas  # only when asked: pandas is optional
        return pandas.DataFrame(self.columns)

    def to_numpy(self):
        """The rows as a numpy record array: one field per column, by its name
        (float64 where every cell is a number, else strings)."""
        names = list(self.columns)
        if not names:
            return _np.rec.array(_np.empty(0, dtype=[]))
        arrays = [self.columns[n] if self.columns[n].dtype != object
                  else self.columns[n].astype(str) for n in names]
        return _np.rec.fromarrays(arrays, names=names)

    def _repr_html_(self, rows=20):
        # In a notebook: the table itself (its first rows), not a one-line repr.
        names = list(self.columns)
        head = "".join("<th>%s</th>" % _html.escape(n) for n in names)
        body = []
        for r in range(min(rows, len(self))):
            cells = []
            for n in names:
                v = self.columns[n][r]
                text = "" if isinstance(v, float) and _np.isnan(v) else (
                    "%.6g" % v if isinstance(v, float) else str(v))
                cells.append("<td>%s</td>" % _html.escape(text))
            body.append("<tr>%s</tr>" % "".join(cells))
        more = ("<p>%d of %d rows shown</p>" % (rows, len(self))) if len(self) > rows else ""
        return ("<p><b>%s</b> (sinkscope.Table)</p><table><thead><tr>%s</tr></thead>"
                "<tbody>%s</tbody></table>%s" % (_html.escape(self.name), head, "".join(body),
                                                   more))


def _column(cells):
    try:
        return _np.array([float(c) if c != "" else _np.nan for c in cells], dtype=_np.float64)
    except ValueError:
        return _np.array(cells, dtype=object)


def analyze(attention, values=None, tokens=None, model="", batch=0, progress=None, **params):
    """Every table of ``sinkscope-cli analyze`` for this attention, as a dict
    from the table's name ("sinks", "persistence", "layer_summary", ...) to a
    Table. ``progress(fraction)`` hears how far it is; Ctrl-C stops it."""
    out = {}
    for name, text in _core.analyze(attention, values, tokens, model, batch, progress, **params):
        stem = name[:-4] if name.endswith(".csv") else name
        out[stem] = Table(stem, text.decode("utf-8"))
    return out


def _settings_doc():
    # The keyword arguments as SinkScope declares them (the CLI's options and
    # study.json's fields come from the same declaration).
    lines = ["", "", "    Keyword arguments (metrics.md; the CLI's options of the same names):", ""]
    for s in _core.analysis_settings():
        bounds = ""
        if s["kind"] in ("number", "whole number", "1 to 32 numbers"):
            bounds = ", %.15g to %.15g" % (s["lo"], s["hi"])
        lines.append("    %s: %s (%s%s; default %s; %s)" % (
            s["name"], s["help"], s["kind"], bounds, s["default"], "metrics.md " + s["paper"]))
    return "\n".join(lines)


analyze.__doc__ += _settings_doc()


def views(attention, values=None, tokens=None, model="", layer=0, head=0, query=-1,
          threshold=0.05, **params):
    """Every panel's views of one head (``head=-1``: the layer's average), as
    the window draws them: a dict with the selection and, per panel name
    ("attention-map", "key-importance", "persistence", ...), its views in the
    window's order. Each view is a dict of its kind ("plot", "heat_map",
    "scene", "head_view"), its title, what it draws (series, cells, points)
    and "numbers": the table its CSV writes (analyze's rows). The keyword
    arguments are analyze's."""
    return _json.loads(_core.views(attention, values, tokens, model, layer, head, query,
                                  threshold, **params))


def persistence(A, symmetrise_by_max=False):
    """H0 and H1 bars of one head's map [T, T] (metrics.md s. 2) as [n, 2]
    arrays of (birth, death): ``p = persistence(A); p[0], p[1]``."""
    return _core.persistence(A, symmetrise_by_max)


def spectrum(A, theta=0.05, normalised=False):
    """The Laplacian eigenvalues (ascending) of one head's graph at threshold theta."""
    return _core.spectrum(A, theta, normalised)


def sink_metric(A):
    """alpha_k, the mean attention key k receives (Gu et al.'s sink metric)."""
    return _core.sink_metric(A)


def value_space(A, V, query=-1, N=3):
    """Precision, recall and F of the top-N keys' value contributions at
    ``query`` (metrics.md s. 6) with the random baseline, r_max and r_min."""
    return _core.value_space(A, V, query, N)


def save_capture(path, attention, values=None, tokens=None, model="", batch=0, overwrite=False):
    """Writes a capture NPZ that sinkscope-cli analyze --capture, sinkscope
    figure --capture and the GUI open."""
    _core.save_capture(str(path), attention, values, tokens, model, batch, overwrite)


class View:
    """A run as SinkScope's interactive page: every head's attention map (with
    hover), the overview of sink attention (click selects), key importance,
    the head view, persistence, spectrum, value space and analyze's numbers.
    In a notebook it draws itself in the output cell; ``save(path)`` writes it
    as one self-contained HTML file (no network) to open in any browser or
    send to a colleague; ``html`` is that file's text."""

    def __init__(self, html, height=900):
        self.html = html
        self.height = height

    def _repr_html_(self):
        # The page in a frame of its own: its script and style cannot touch
        # the notebook's, and the notebook's cannot touch it.
        return ('<iframe srcdoc="%s" style="width:100%%;height:%dpx;border:0" '
                'sandbox="allow-scripts" title="SinkScope"></iframe>'
                % (_html.escape(self.html, quote=True), self.height))

    def save(self, path, overwrite=False):
        """Writes the page to ``path`` (refusing to replace a file unless ``overwrite``)."""
        with open(path, "w" if overwrite else "x", encoding="utf-8") as out:
            out.write(self.html)

    def __repr__(self):
        return "<sinkscope.View: %d bytes of HTML; save(path) or display it in a notebook>" % (
            len(self.html))


def show(attention, values=None, tokens=None, model="", text="", height=900, **params):
    """The interactive view of any attention ``analyze`` accepts ([L, H, T, T],
    a Hugging Face per-layer tuple, a TransformerLens per-layer list of
    [H, T, T], one head's [T, T]), as a View: in a notebook, the last
    expression of a cell draws it. ``values`` adds the value space and the
    taxonomy; ``text`` is the sentence the page shows; the keyword arguments
    are analyze's."""
    return View(_core.web_page(attention, values, tokens, model, text, **params), height)


def _run_show(self, height=900, **params):
    """This run's interactive view (see sinkscope.show)."""
    return show(self.attention, self.values, self.tokens, self.model, self.text, height, **params)


Run.show = _run_show
