#!/usr/bin/env python3
"""Draws the ReDrafter paper's figures from a draftbench report.json, each as PNG and SVG.

  figure5_<dataset>_T<t>  speedup and tokens/step per prompt category, one bar per drafter
  figure6_tokens          packed (verified) vs beam tokens per step against beam width
  figure6_batch           TPS and TPS x BSZ against batch size, tree attention on vs off
  figure7                 speedup over beam width x beam length, one map per temperature
  table5                  TPS and TPS x BSZ over beam width x batch size, OOM cells marked

A figure the report has no points for is skipped with one line on stdout saying why; a
report that is not valid report.json is one line on stderr naming the file, exit code 1.
Where several points could fill one bar or cell, the choice is fixed (the spec's first
dataset and drafter, the lowest temperature, the most common beam length) and the title
says which. Paper numbers are never drawn: these show what this report measured.

  scripts/plot_report.py runs/NAME/report.json --out runs/NAME/plots
"""
import argparse
import json
import math
import os
import re
import sys
import textwrap
from collections import Counter

import matplotlib

matplotlib.use("Agg")  # files only: sweeps run on machines without a display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib import colors as mcolors  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reports", "schema", "report.schema.json")
STATUSES = ("ok", "oom", "timeout", "error")
# How a cell without metrics looks in a heat map: label, face colour, hatch.
STATUS_STYLE = {"oom": ("OOM", "#9e9e9e", None), "timeout": ("timeout", "#e0e0e0", "//"), "error": ("error", "#e0e0e0", "xx")}
TREE_ATTENTION_STYLE = {True: ("tree attention on", "#1f77b4", "-"), False: ("tree attention off", "#d62728", "--")}

plt.rcParams.update({
    "font.size": 9,
    "axes.titlesize": 10,
    "figure.titlesize": 10.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "svg.hashsalt": "draftbench",  # fixed SVG ids, so that rerunning on the same report gives the same file
})


class ReportError(Exception):
    """report.json cannot be read; the message names the field or says what is wrong."""


def load_report(path):
    try:
        with open(path) as f:
            report = json.load(f)
    except OSError as e:
        raise ReportError(e.strerror)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ReportError(f"not JSON ({e})")
    check_against_schema(report)
    check_fields_used(report)
    return report


def check_against_schema(report):
    """The full JSON Schema check, where jsonschema is installed (the test venv has it;
    the plain set-up does not, and then check_fields_used alone guards the figures)."""
    try:
        import jsonschema
    except ImportError:
        return
    if not os.path.exists(SCHEMA_PATH):
        return
    with open(SCHEMA_PATH) as f:
        schema = json.load(f)
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(report))
    if error is not None:
        where = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in error.absolute_path).lstrip(".") or "top level"
        message = error.message if len(error.message) <= 160 else error.message[:157] + "..."
        raise ReportError(f"{where}: {message} (reports/schema/report.schema.json)")


def check_fields_used(report):
    if not isinstance(report, dict) or report.get("schema") != "draftbench-report":
        raise ReportError('not a draftbench report ("schema" is not "draftbench-report")')
    if report.get("schema_version") != 1:
        raise ReportError(f"schema_version {report.get('schema_version')!r}: this script reads version 1")
    if not isinstance(report.get("spec"), dict) or not isinstance(report.get("points"), list):
        raise ReportError("spec must be an object and points an array")
    for i, p in enumerate(report["points"]):
        if not isinstance(p, dict) or not isinstance(p.get("params"), dict):
            raise ReportError(f"points[{i}]: expected an object with a params object")
        for field in ("dataset", "drafter", "kind"):
            if not isinstance(p.get(field), str):
                raise ReportError(f"points[{i}].{field}: expected a string")
        if p.get("status") not in STATUSES:
            raise ReportError(f"points[{i}].status: {p.get('status')!r} is not one of {', '.join(STATUSES)}")
        if p["status"] == "ok" and not isinstance(p.get("metrics"), dict):
            raise ReportError(f"points[{i}]: status is ok but there is no metrics object")


# ---- Reading points

def param(point, name, default=None):
    return point["params"].get(name, default)


def batch_size(point):
    return int(param(point, "batch_size", 1))


def temperature(point):
    return float(param(point, "temperature", 0.0))


def is_ok(point):
    return point["status"] == "ok"


def metric(point, name):
    value = point["metrics"].get(name)
    return math.nan if value is None else float(value)


def first_occurrence_rank(names):
    rank = {}
    for name in names:
        rank.setdefault(name, len(rank))
    return rank


class Report:
    """The points, the model's name for titles, and the spec's orders of datasets and
    drafters, which decide ties between points the same way on every run."""

    def __init__(self, data):
        self.points = data["points"]
        spec = data["spec"]
        model = spec.get("model") or data.get("environment", {}).get("model", {}).get("path") or "model"
        self.model = re.sub(r"\.gguf$", "", os.path.basename(str(model)))
        def in_spec(key):
            return [d.get("name") for d in spec.get(key, []) if isinstance(d, dict)]
        self.dataset_rank = first_occurrence_rank(in_spec("datasets") + [p["dataset"] for p in self.points])
        self.drafter_rank = first_occurrence_rank(in_spec("drafters") + [p["drafter"] for p in self.points])


def most_common(points, name):
    """The value of param `name` that most points have; a tie goes to the larger value."""
    counts = Counter(param(p, name) for p in points)
    return max(counts, key=lambda v: (counts[v], v if isinstance(v, (int, float)) else -math.inf))


def redrafter_points(report):
    """The ReDrafter points of one drafter on one dataset (the spec's first of each that
    has points), distilled ones when both kinds ran: a figure never mixes prompt sets or
    drafter weights in one line or cell. Returns the points and the title's words for them."""
    points = [p for p in report.points if p["kind"] == "redrafter"]
    if not points:
        return [], []
    drafter = min({p["drafter"] for p in points}, key=report.drafter_rank.get)
    points = [p for p in points if p["drafter"] == drafter]
    datasets = {p["dataset"] for p in points}
    dataset = min(datasets, key=report.dataset_rank.get)
    points = [p for p in points if p["dataset"] == dataset]
    words = [report.model, f"drafter {drafter}", f"dataset {dataset}" + (f" (first of {len(datasets)})" if len(datasets) > 1 else "")]
    if len({param(p, "distilled") for p in points}) > 1:
        points = [p for p in points if param(p, "distilled") is True]
        words.append("distilled")
    return points, words


def keep_one(points, name, value):
    return [p for p in points if param(p, name) == value]


def prefer_tree_attention(points, words):
    """Tree attention on where the report has it (the paper's setting), else off."""
    on = any(param(p, "tree_attention") is True for p in points)
    words.append("tree attention " + ("on" if on else "off"))
    return keep_one(points, "tree_attention", on)


def first_per_cell(points, axes):
    """{axis values: point}, the first point in report order where a cell has several,
    and whether any had several (the title then says so)."""
    cells, shared = {}, False
    for p in points:
        key = tuple(param(p, a) for a in axes)
        shared |= key in cells
        cells.setdefault(key, p)
    return cells, shared


def title(fig, what, words, shared=False):
    """The figure's title over lines of context (model, drafter, what was held fixed),
    wrapped to the figure's width: constrained layout does not widen a figure for it."""
    if shared:
        words = words + ["first point per cell in report order"]
    width_chars, lines = int(fig.get_figwidth() * 12), [""]
    for word in words:
        if lines[-1] and len(lines[-1]) + 3 + len(word) > width_chars:
            lines.append("")
        lines[-1] += (" · " if lines[-1] else "") + word
    fig.suptitle("\n".join(textwrap.wrap(what, width_chars) + lines), fontsize=10)


def log2_axis_if_wide(ax, values):
    """Beam widths and batch sizes are swept in powers of two: spread them evenly. The
    limits cover every swept value, drawn or not, with room for labels at the ends."""
    low, high = min(values), max(values)
    if low > 0 and high / low >= 8:
        ax.set_xscale("log", base=2)
        ax.set_xlim(low / 2 ** 0.3, high * 2 ** 0.3)
    else:
        ax.set_xlim(low - 0.08 * (high - low), high + 0.08 * (high - low))
    ax.set_xticks(values, [f"{v:g}" for v in values])
    ax.minorticks_off()


# ---- Figures. Each returns [(file stem, figure)] or, to skip, a string saying what it needs.

def figure5(report):
    candidates = [p for p in report.points
                  if p["kind"] != "autoregressive" and is_ok(p) and batch_size(p) == 1 and p.get("per_category")]
    if not candidates:
        return "needs ok non-autoregressive points at batch size 1 with per_category results"
    drawn = []
    for dataset in sorted({p["dataset"] for p in candidates}, key=report.dataset_rank.get):
        for t in sorted({temperature(p) for p in candidates if p["dataset"] == dataset}):
            group = [p for p in candidates if p["dataset"] == dataset and temperature(p) == t]
            stem = f"figure5_{re.sub(r'[^A-Za-z0-9_.-]+', '_', dataset)}_T{t:g}"
            drawn.append((stem, figure5_panel(report, dataset, t, group)))
    return drawn


def drafter_setting(point):
    kind = point["kind"]
    if kind == "redrafter":
        s = f"BW {param(point, 'beam_width')}, BL {param(point, 'beam_length')}"
        return s + ("" if param(point, "tree_attention", True) else ", no tree attention")
    if param(point, "tree") is not None:
        return "shipped tree" if param(point, "tree") == "shipped" else "tree " + os.path.basename(str(param(point, "tree")))
    if kind == "eagle":
        return f"depth {param(point, 'depth')}, top-k {param(point, 'top_k')}, {param(point, 'total_tokens')} tokens"
    return ""


def figure5_panel(report, dataset, t, group):
    """One bar per drafter in each category: the drafter's point with the highest overall
    speedup (the configuration one would ship), ties to the first in report order."""
    def rank_key(p):
        speedup = metric(p, "speedup")
        return (speedup if not math.isnan(speedup) else -math.inf, metric(p, "tps"))
    best = {}
    for p in group:
        if p["drafter"] not in best or rank_key(p) > rank_key(best[p["drafter"]]):
            best[p["drafter"]] = p
    drafters = sorted(best, key=report.drafter_rank.get)
    categories = sorted({c for p in best.values() for c in p["per_category"]}) + ["overall"]

    def value(p, category, name):
        source = p["metrics"] if category == "overall" else p["per_category"].get(category, {})
        v = source.get(name)
        return math.nan if v is None else float(v)

    fig, axes = plt.subplots(2, 1, figsize=(max(6.5, 0.5 * len(categories) * len(drafters) ** 0.5 + 2.5), 6.2),
                             sharex=True, layout="constrained")
    x = np.arange(len(categories))
    width = 0.8 / len(drafters)
    for ax, name, label in ((axes[0], "speedup", "speedup (TPS / autoregressive TPS)"), (axes[1], "tokens_per_step", "tokens / step")):
        for k, drafter in enumerate(drafters):
            p = best[drafter]
            heights = [value(p, c, name) for c in categories]
            setting = drafter_setting(p)
            bars = ax.bar(x + (k - (len(drafters) - 1) / 2) * width, heights, width * 0.92, color=f"C{k}",
                          label=f"{drafter} ({setting})" if setting else drafter)
            if len(categories) * len(drafters) <= 40:
                ax.bar_label(bars, fmt="%.2f", fontsize=6.5, padding=1.5)
        ax.axhline(1.0, color="#555555", lw=0.8, ls="--", zorder=0, label="autoregressive (= 1)")
        ax.axvline(len(categories) - 1.5, color="#bbbbbb", lw=0.8)
        ax.set_ylabel(label)
        ax.margins(y=0.12)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=min(len(handles), 4), fontsize=8)
    crowded = len(categories) * len(drafters) > 27
    axes[1].set_xticks(x, categories, rotation=30 if crowded else 0, ha="right" if crowded else "center")
    axes[1].set_xlabel("prompt category")
    title(fig, f"Figure 5: speedup and tokens/step per category, {dataset}, T {t:g}",
          [report.model, "batch 1", "per drafter its point with the highest overall speedup"])
    return fig


def figure6_tokens(report):
    need = "needs ok redrafter points with tree attention on, at batch size 1 and >= 2 beam widths"
    points, words = redrafter_points(report)
    points = [p for p in points if is_ok(p) and batch_size(p) == 1 and param(p, "tree_attention") is True]
    if not points:
        return need
    t = min(temperature(p) for p in points)
    points = [p for p in points if temperature(p) == t]
    beam_length = most_common(points, "beam_length")
    by_width, shared = first_per_cell(keep_one(points, "beam_length", beam_length), ["beam_width"])
    widths = sorted(w for (w,) in by_width)
    if len(widths) < 2:
        return need

    fig, ax = plt.subplots(figsize=(7, 4.4), layout="constrained")
    means = {}
    for name, label, colour in (("beam_tokens", f"beam tokens (BW x BL {beam_length})", "#7f7f7f"),
                                ("verified_tokens", "packed tokens (verified with tree attention)", "#1f77b4")):
        stats = [by_width[(w,)]["metrics"][name] for w in widths]
        mean = means[name] = np.array([s["mean"] for s in stats])
        below, above = mean - np.array([s["p1"] for s in stats]), np.array([s["p99"] for s in stats]) - mean
        ax.errorbar(widths, mean, yerr=[np.maximum(below, 0), np.maximum(above, 0)], marker="o", ms=4, capsize=3,
                    color=colour, label=label + ": mean, bars p1-p99")
    for w, beam, packed in zip(widths, means["beam_tokens"], means["verified_tokens"]):
        if beam > 0:  # how much tree attention saved, beside each packed point
            ax.annotate(f"-{100 * (1 - packed / beam):.0f}%", (w, packed), textcoords="offset points", xytext=(6, -2),
                        ha="left", va="top", fontsize=7.5, color="#1f77b4")
    log2_axis_if_wide(ax, widths)
    ax.set_xlabel("beam width")
    ax.set_ylabel("tokens per verification step")
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper left")
    ax.grid(axis="y", color="#e5e5e5", lw=0.6)
    title(fig, "Figure 6 (left): tokens verified per step, packed by tree attention vs all beam tokens",
          words + [f"BL {beam_length}", f"T {t:g}", "batch 1", "labels: % fewer packed than beam tokens"], shared)
    return [("figure6_tokens", fig)]


def figure6_batch(report):
    need = "needs ok redrafter points with tree attention on and off at one beam width and >= 2 batch sizes"
    points, words = redrafter_points(report)
    points = [p for p in points if param(p, "tree_attention") in (True, False)]
    finished = [p for p in points if is_ok(p)]
    if not finished:
        return need
    t = min(temperature(p) for p in finished)
    points = [p for p in points if temperature(p) == t]
    beam_length = most_common(points, "beam_length")
    points = keep_one(points, "beam_length", beam_length)

    def usable(width):
        ran = [p for p in points if is_ok(p) and param(p, "beam_width") == width]
        return {param(p, "tree_attention") for p in ran} == {True, False} and len({batch_size(p) for p in ran}) >= 2
    widths = [w for w in {param(p, "beam_width") for p in points} if usable(w)]
    if not widths:
        return need
    width = max(widths)
    cells, shared = first_per_cell(keep_one(points, "beam_width", width), ["tree_attention", "batch_size"])
    sizes = sorted({b for (_, b) in cells})

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), layout="constrained")
    for ax, name, label in ((axes[0], "tps", "TPS (tokens/s per request)"), (axes[1], "tps_x_bsz", "TPS x BSZ (tokens/s)")):
        for on in (True, False):
            legend, colour, line = TREE_ATTENTION_STYLE[on]
            ran = [(b, cells[(on, b)]) for b in sizes if (on, b) in cells and is_ok(cells[(on, b)])]
            ax.plot([b for b, _ in ran], [metric(p, name) for _, p in ran], marker="o", ms=4, color=colour, ls=line, label=legend)
        for b in sizes:  # batch sizes that did not finish, named at the foot of the axis
            failed = {on: STATUS_STYLE[cells[(on, b)]["status"]][0] for on in (True, False)
                      if (on, b) in cells and not is_ok(cells[(on, b)])}
            if len(failed) == 2 and failed[True] == failed[False]:
                failed = {None: failed[True]}
            if failed:
                note = "\n".join(s if on is None else f"{s} ({'on' if on else 'off'})" for on, s in failed.items())
                ax.text(b, 0.02, note, transform=ax.get_xaxis_transform(), ha="center", va="bottom", fontsize=7.5,
                        color="#555555")
        log2_axis_if_wide(ax, sizes)
        ax.set_xlabel("batch size")
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
        ax.grid(axis="y", color="#e5e5e5", lw=0.6)
    axes[0].legend(loc="best")
    title(fig, "Figure 6 (right): throughput against batch size, with and without tree attention",
          words + [f"BW {width}", f"BL {beam_length}", f"T {t:g}"], shared)
    return [("figure6_batch", fig)]


def heatmap(ax, cells, rows, cols, value, cmap, norm, fmt):
    """Cells coloured by value; cells that did not finish grey with their status; cells
    not in the sweep left blank."""
    data = np.full((len(rows), len(cols)), np.nan)
    for (r, c), p in cells.items():
        if is_ok(p):
            data[rows.index(r), cols.index(c)] = value(p)
    cmap = plt.get_cmap(cmap).with_extremes(bad="white")
    image = ax.imshow(np.ma.masked_invalid(data), cmap=cmap, norm=norm, aspect="auto")
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            p = cells.get((r, c))
            if p is None:
                continue
            if not is_ok(p):
                label, face, hatch = STATUS_STYLE[p["status"]]
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=face, hatch=hatch, edgecolor="white", lw=0))
                ax.text(j, i, label, ha="center", va="center", fontsize=8, color="#222222")
            elif math.isnan(data[i, j]):
                ax.text(j, i, "n/a", ha="center", va="center", fontsize=8, color="#555555")
            else:
                red, green, blue, _ = cmap(norm(data[i, j]))
                dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5
                ax.text(j, i, fmt(data[i, j]), ha="center", va="center", fontsize=8, color="white" if dark else "black")
    ax.set_xticks(range(len(cols)), [f"{c:g}" for c in cols])
    ax.set_yticks(range(len(rows)), [f"{r:g}" for r in rows])
    ax.set_xticks(np.arange(len(cols) + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(len(rows) + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", lw=1.5)
    ax.tick_params(which="both", length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    return image


def status_legend(fig, cells):
    present = sorted({p["status"] for p in cells if not is_ok(p)}, key=STATUSES.index)
    if present:
        handles = [Patch(facecolor=STATUS_STYLE[s][1], hatch=STATUS_STYLE[s][2], edgecolor="#777777", lw=0.5,
                         label={"oom": "OOM: planned memory over the budget", "timeout": "timeout", "error": "error"}[s])
                   for s in present]
        fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=8)


def heatmap_size(n_rows, n_cols, panels):
    return (max(5.2, 1.6 + 0.62 * n_cols) * panels + 0.6, max(3.2, 1.7 + 0.36 * n_rows))


def figure7(report):
    need = "needs redrafter points at >= 2 beam widths and >= 2 beam lengths"
    points, words = redrafter_points(report)
    points = [p for p in points if batch_size(p) == 1]
    if not points:
        return need
    points = prefer_tree_attention(points, words)
    maps = []
    for t in sorted({temperature(p) for p in points}):
        cells, shared = first_per_cell([p for p in points if temperature(p) == t], ["beam_width", "beam_length"])
        finished = [k for k, p in cells.items() if is_ok(p)]
        if len({w for w, _ in finished}) >= 2 and len({b for _, b in finished}) >= 2:
            maps.append((t, cells, shared))
    if not maps:
        return need
    speedups = [metric(p, "speedup") for _, cells, _ in maps for p in cells.values() if is_ok(p)]
    speedups = [s for s in speedups if not math.isnan(s)]
    if not speedups:
        return "needs speedups (an autoregressive baseline that finished)"
    low, high = min(speedups), max(speedups)
    if low < 1 < high:  # slower and faster than autoregressive on either side of white
        cmap, norm = "RdBu", mcolors.TwoSlopeNorm(vmin=low, vcenter=1.0, vmax=high)
    else:
        cmap, norm = ("Blues" if low >= 1 else "Reds_r"), mcolors.Normalize(vmin=low, vmax=high if high > low else low + 1e-9)

    widths = sorted({w for _, cells, _ in maps for w, _ in cells})
    lengths = sorted({b for _, cells, _ in maps for _, b in cells})
    fig, axes = plt.subplots(1, len(maps), figsize=heatmap_size(len(widths), len(lengths), len(maps)), layout="constrained",
                             squeeze=False)
    for ax, (t, cells, _) in zip(axes[0], maps):
        image = heatmap(ax, cells, widths, lengths, lambda p: metric(p, "speedup"), cmap, norm, lambda v: f"{v:.2f}x")
        ax.set_title(f"T {t:g}")
        ax.set_xlabel("beam length")
        ax.set_ylabel("beam width")
    fig.colorbar(image, ax=axes[0].tolist(), label="speedup (TPS / autoregressive TPS)", shrink=0.9)
    status_legend(fig, [p for _, cells, _ in maps for p in cells.values()])
    title(fig, "Figure 7: speedup over autoregressive, by beam width x beam length",
          words + ["batch 1"], any(shared for _, _, shared in maps))
    return [("figure7", fig)]


def table5(report):
    need = "needs redrafter points at >= 2 beam widths and >= 2 batch sizes"
    points, words = redrafter_points(report)
    finished = [p for p in points if is_ok(p)]
    if not finished:
        return need
    t = min(temperature(p) for p in finished)
    points = [p for p in points if temperature(p) == t]
    points = prefer_tree_attention(points, words)
    if not points:
        return need
    beam_length = most_common(points, "beam_length")
    cells, shared = first_per_cell(keep_one(points, "beam_length", beam_length), ["beam_width", "batch_size"])
    widths, sizes = sorted({w for w, _ in cells}), sorted({b for _, b in cells})
    if len(widths) < 2 or len(sizes) < 2 or not any(is_ok(p) for p in cells.values()):
        return need

    fig, axes = plt.subplots(1, 2, figsize=heatmap_size(len(widths), len(sizes), 2), layout="constrained")
    for ax, name, label in ((axes[0], "tps", "TPS (tokens/s per request)"), (axes[1], "tps_x_bsz", "TPS x BSZ (tokens/s)")):
        values = [metric(p, name) for p in cells.values() if is_ok(p)]
        norm = mcolors.Normalize(vmin=min(values), vmax=max(values) if max(values) > min(values) else min(values) + 1e-9)
        image = heatmap(ax, cells, widths, sizes, lambda p: metric(p, name), "viridis", norm,
                        lambda v: f"{v:.0f}" if v >= 100 else f"{v:.1f}")
        fig.colorbar(image, ax=ax, label=label, shrink=0.9)
        ax.set_title(label)
        ax.set_xlabel("batch size")
        ax.set_ylabel("beam width")
    status_legend(fig, list(cells.values()))
    title(fig, "Table 5: latency (TPS) and throughput (TPS x BSZ) by beam width x batch size",
          words + [f"BL {beam_length}", f"T {t:g}"], shared)
    return [("table5", fig)]


FIGURES = (("figure5", figure5), ("figure6_tokens", figure6_tokens), ("figure6_batch", figure6_batch),
           ("figure7", figure7), ("table5", table5))


def save(fig, out_dir, stem):
    paths = [os.path.join(out_dir, f"{stem}.{ext}") for ext in ("png", "svg")]
    fig.savefig(paths[0], dpi=150)
    fig.savefig(paths[1], metadata={"Date": None})  # no timestamp: the same report gives the same file
    plt.close(fig)
    return paths


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("report", help="report.json from draftbench run or draftbench report")
    ap.add_argument("--out", required=True, help="folder for the PNG and SVG files (created if missing)")
    args = ap.parse_args(argv)
    try:
        report = Report(load_report(args.report))
        os.makedirs(args.out, exist_ok=True)
        for name, draw in FIGURES:
            drawn = draw(report)
            if isinstance(drawn, str):
                print(f"{name}: skipped ({drawn})")
            for stem, fig in [] if isinstance(drawn, str) else drawn:
                print(f"{name}: wrote {', '.join(save(fig, args.out, stem))}")
    except ReportError as e:
        print(f"plot_report: {args.report}: {e}", file=sys.stderr)
        return 1
    except (KeyError, TypeError, ValueError, AttributeError) as e:  # a field of the wrong shape, without jsonschema to name it
        print(f"plot_report: {args.report}: unexpected report shape ({type(e).__name__}: {e})", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"plot_report: {e.filename or args.out}: {e.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
