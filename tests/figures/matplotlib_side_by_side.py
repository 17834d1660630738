#!/usr/bin/env python3
"""SinkScope's exported figure beside matplotlib's drawing of the same numbers.

For every panel (or those named), `sinkscope figure` writes the figure as a
PNG and its views as data (JSON: the numbers, labels and styles the figure
drew); this script draws those views with matplotlib at the same size and
font, the way a careful author would, and writes OUT/PANEL.png with
SinkScope's figure on the left and matplotlib's on the right, each at print
size at the chosen DPI. Look at them at 100% to judge a figure.

    tests/figures/matplotlib_side_by_side.py build/app/sinkscope OUT \\
        [--panel NAME ...] [--preset one-column] [--dpi 200] \\
        [--model DIR] [--text SENTENCE]

Needs Debian's python3-matplotlib and python3-numpy.
"""
import argparse
import json
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

PANELS = ["attention-map", "key-importance", "overview", "layer-profiles", "persistence",
          "spectrum", "graph", "value-space", "taxonomy", "head-view"]
FONT_PT = {"one-column": 8, "two-columns": 8, "slide": 14, "screen": 9}
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_figure(program, args, panel, out):
    command = [program, "figure"] + args + ["--panel", panel, "--out", out, "--force"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)}: {done.stderr.strip()}")


def plain(label):
    """A figure shows the screen's visible space as a plain space."""
    return label.replace("\u2423", " ").strip() or label


def colour_of(series, k, palette):
    """A series' colour as SinkScope chose it: its own, its twin's (tinted) or the palette's."""
    s = series[k]
    if s["style"] == "reference":
        return (0.47, 0.47, 0.47)
    if s["style"] == "threshold":
        return (0.7, 0.09, 0.17)
    if s["colour"] is not None:
        return tuple(s["colour"])
    if s["colour_of"] >= 0:
        base = np.array(colour_of(series, s["colour_of"], palette))
        return tuple(base + (1 - base) * 0.5)
    return palette[k % len(palette)]


def draw_plot(ax, view):
    series = view["series"]
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    bottoms = None
    for k, s in enumerate(series):
        x = np.array([np.nan if v is None else v for v in s["x"]], dtype=float)
        y = np.array([np.nan if v is None else v for v in s["y"]], dtype=float)
        label = s["name"] if s["in_legend"] else None
        colour = colour_of(series, k, palette)
        if s["style"] == "stacked_bars":
            if bottoms is None:
                bottoms = np.zeros_like(y)
            ax.bar(x, y, 0.7, bottom=bottoms, color=colour, label=label)
            bottoms = bottoms + np.nan_to_num(y)
            continue
        if len(x) == 0:  # a legend key: what a line style means
            ax.plot([], [], color=colour, linestyle="--" if s["dashed"] else "-", label=label)
            continue
        if s["style"] == "segments":
            for i in range(0, len(x) - 1, 2):
                ax.plot(x[i:i + 2], y[i:i + 2], color=colour, linewidth=1.2,
                        label=label if i == 0 else None)
            continue
        style = "--" if s["dashed"] or s["style"] == "reference" else (
            ":" if s["style"] == "threshold" else "-")
        if s["style"] == "points":
            ax.scatter(x, y, s=12, color=colour, alpha=0.7, label=label)
        else:
            ax.plot(x, y, linestyle=style, color=colour, linewidth=1.2,
                    marker="o" if s["markers"] and s["style"] == "line" else None,
                    markersize=3, label=label)
        if "lo" in s:
            lo = np.array([np.nan if v is None else v for v in s["lo"]], dtype=float)
            hi = np.array([np.nan if v is None else v for v in s["hi"]], dtype=float)
            ax.errorbar(x, y, yerr=[y - lo, hi - y], fmt="none", ecolor=colour, capsize=2)
    ax.set_xlabel(view["x_label"])
    ax.set_ylabel(view["y_label"])
    if view.get("log2_x"):
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    if view.get("x_tick_labels"):
        ticks = view["x_tick_labels"]
        ax.set_xticks(range(len(ticks)), [plain(t) for t in ticks], rotation=90)
    elif view["integer_x"]:
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    if view["include_zero"]:
        ax.set_ylim(bottom=min(0, ax.get_ylim()[0]))
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(True, linestyle=":", linewidth=0.5)
    if any(s["in_legend"] for s in series):
        ax.legend(frameon=False, loc="best", fontsize="small")


def draw_heat_map(ax, view):
    rows, cols = view["rows"], view["cols"]
    values = np.array([np.nan if v is None else v for v in view["values"]], dtype=float)
    values = values.reshape(rows, cols)
    hidden = np.array(view["hidden"], dtype=bool).reshape(rows, cols) if view["hidden"] else None
    if hidden is not None:
        values = np.where(hidden, np.nan, values)
    if view["categories"]:
        colours = [c["colour"] or (0.5, 0.5, 0.5) for c in view["categories"]]
        cmap = matplotlib.colors.ListedColormap(colours)
        image = ax.imshow(values, cmap=cmap, vmin=-0.5, vmax=len(colours) - 0.5)
        bar = plt.colorbar(image, ax=ax, ticks=range(len(colours)), fraction=0.05)
        bar.ax.set_yticklabels([c["name"] for c in view["categories"]])
    else:
        cmap = matplotlib.colormaps["RdBu_r" if view["scale"] == "diverging" else "viridis"].copy()
        cmap.set_bad("#e6e6e6")
        lo, hi = view["range"]
        image = ax.imshow(values, cmap=cmap, vmin=lo, vmax=hi)
        bar = plt.colorbar(image, ax=ax, fraction=0.05)
        bar.set_label(view["quantity"])
    ax.set_xticks(range(cols), [plain(t) for t in view["col_labels"]] if view["col_labels"] else [],
                  rotation=90)
    ax.set_yticks(range(rows), [plain(t) for t in view["row_labels"]] if view["row_labels"] else [])
    ax.set_xlabel(view["col_title"])
    ax.set_ylabel(view["row_title"])
    ax.xaxis.set_label_position("top")
    ax.xaxis.tick_top()


def draw_scene(ax, view):
    points = view["points"]
    xy = np.array([[np.nan if v is None else v for v in p["position"][:2]] for p in points])
    for e in view["edges"]:
        a, b = xy[e["from"]], xy[e["to"]]
        ax.plot([a[0], b[0]], [a[1], b[1]], color="0.6", linewidth=0.3 + 2 * e["weight"], zorder=1)
    ax.scatter(xy[:, 0], xy[:, 1], c=[p["colour"] for p in points],
               s=[20 + 60 * p["size"] for p in points], zorder=2)
    for p, (x, y) in zip(points, xy):
        if p["label"]:
            ax.annotate(plain(p["label"]), (x, y), xytext=(3, 3), textcoords="offset points")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_axis_off()
    bar = view.get("colour_bar")
    if bar:
        scale = matplotlib.cm.ScalarMappable(
            norm=matplotlib.colors.Normalize(bar["lo"], bar["hi"]), cmap="RdBu_r")
        plt.colorbar(scale, ax=ax, fraction=0.05).set_label(bar["name"])
    if view["legend"]:
        ax.set_title(view["legend"], fontsize="small", loc="left")


def draw_head_view(ax, view):
    tokens = [plain(t) for t in view["tokens"]]
    n = len(tokens)
    for i, t in enumerate(tokens):
        ax.text(0, -i, t, ha="right", va="center")
        ax.text(1, -i, t, ha="left", va="center")
    for head in view["heads"]:
        weights = np.array(head["weights"], dtype=float).reshape(n, n)
        for q in range(n):
            for k in range(n):
                if weights[q, k] > 0.02:
                    ax.plot([0.05, 0.95], [-q, -k], color=head["colour"],
                            alpha=min(1.0, weights[q, k]), linewidth=1)
    ax.set_xlim(-0.6, 1.6)
    ax.set_axis_off()


DRAW = {"plot": draw_plot, "heat_map": draw_heat_map, "scene": draw_scene,
        "head_view": draw_head_view}


def matplotlib_figure(views, size_in, font_pt, out, dpi):
    plt.rcParams.update({"font.size": font_pt, "font.family": "DejaVu Sans"})
    fig, axes = plt.subplots(len(views), 1, figsize=size_in, squeeze=False)
    for letter, (ax, view) in enumerate(zip(axes[:, 0], views)):
        DRAW[view["kind"]](ax, view)
        if len(views) > 1:
            ax.text(-0.15, 1.05, f"({chr(ord('a') + letter)})", transform=ax.transAxes,
                    fontweight="bold", va="bottom")
    fig.tight_layout()
    fig.savefig(out, dpi=dpi)
    plt.close(fig)


def side_by_side(left, right, out, dpi):
    a, b = plt.imread(left), plt.imread(right)
    height = max(a.shape[0], b.shape[0])
    fig = plt.figure(figsize=((a.shape[1] + b.shape[1]) / dpi, height / dpi), dpi=dpi)
    for k, (image, x0) in enumerate([(a, 0), (b, a.shape[1])]):
        ax = fig.add_axes([x0 / (a.shape[1] + b.shape[1]), 1 - image.shape[0] / height,
                           image.shape[1] / (a.shape[1] + b.shape[1]), image.shape[0] / height])
        ax.imshow(image)
        ax.set_axis_off()
        ax.set_title(["SinkScope", "matplotlib"][k], fontsize=8)
    fig.savefig(out, dpi=dpi)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("program", help="the sinkscope program (build/app/sinkscope)")
    parser.add_argument("out", help="the folder to write")
    parser.add_argument("--panel", action="append", help="a panel (default: every one)")
    parser.add_argument("--preset", default="one-column", choices=sorted(FONT_PT))
    parser.add_argument("--dpi", type=int, default=200)
    parser.add_argument("--model",
                        default=os.path.join(SOURCE, "resources/models/rope-decoder-bos-first"))
    parser.add_argument("--text", default="The cat sat on the mat because it was tired.")
    a = parser.parse_args()
    os.makedirs(a.out, exist_ok=True)
    args = [a.model, "--text", a.text, "--preset", a.preset, "--dpi", str(a.dpi)]
    for panel in a.panel or PANELS:
        ours = os.path.join(a.out, f"{panel}.sinkscope.png")
        data = os.path.join(a.out, f"{panel}.json")
        theirs = os.path.join(a.out, f"{panel}.matplotlib.png")
        run_figure(a.program, args, panel, ours)
        run_figure(a.program, args, panel, data)
        with open(data, encoding="utf-8") as f:
            loaded = json.load(f)
        views = loaded["views"] if "views" in loaded else [loaded]
        height, width = plt.imread(ours).shape[:2]
        matplotlib_figure(views, (width / a.dpi, height / a.dpi), FONT_PT[a.preset], theirs, a.dpi)
        side_by_side(ours, theirs, os.path.join(a.out, f"{panel}.png"), a.dpi)
        print(os.path.join(a.out, f"{panel}.png"))


if __name__ == "__main__":
    main()
