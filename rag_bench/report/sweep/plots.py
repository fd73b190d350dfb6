"""Tuning curves of a sweep as PNG files (matplotlib, Agg): only the plots the sweep has data for.

Each plot function takes the marked summary table and returns a Figure, or None when the
sweep did not vary what the plot needs (e.g. no second chunk size). Curves against a parameter
(chunk size, dimension, rerank depth) are drawn by ``curve_plot.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from rag_bench.core.files import write_via
from rag_bench.report.sweep.ann_plot import ann_tuning_plot
from rag_bench.report.sweep.cost_plot import cost_plot
from rag_bench.report.sweep.curve_plot import curve_plot
from rag_bench.report.sweep.plot_data import PlotData
from rag_bench.report.sweep.plot_style import (
    DPI,
    MARKERS,
    MAX_LINES,
    PLAIN_TEXT,
    byte_unit,
    figure,
    legend,
    point_label,
)
from rag_bench.score.names import higher_is_better


def make_plots(data: PlotData, out_dir: Path) -> list[Path]:
    """Write each plot the sweep has data for into ``out_dir``; return their paths.

    Drawn in matplotlib's default style, whatever a matplotlibrc says: an image is a function of
    the data, this code and matplotlib's version (``kept.py`` keeps it under those). Every text is
    plain (``PLAIN_TEXT``): a swept value, dataset name or title with ``$`` in it is drawn as written.
    """
    written = []
    with matplotlib.rc_context():
        matplotlib.rcdefaults()  # the backend (Agg, plot_style.py) is left as it is
        matplotlib.rcParams.update(PLAIN_TEXT)
        for name, draw in PLOTS.items():
            drawn = draw(data)
            if drawn is None:
                continue
            out_dir.mkdir(parents=True, exist_ok=True)
            write_via(out_dir / name, lambda tmp, drawn=drawn: drawn.savefig(tmp, dpi=DPI, bbox_inches="tight"))
            written.append(out_dir / name)
    return written


def chunk_size_plot(data: PlotData) -> Figure | None:
    """Metric vs configured chunk size, a line per overlap, chunker or other setting."""
    unit = _single(data.table, "chunker.unit", "units")
    drawn = curve_plot(data, data.table, "chunker.size", "chunk size", unit)
    return None if drawn is None else drawn[0]


def rerank_depth_plot(data: PlotData) -> Figure | None:
    """Metric vs rerank depth (candidates sent to the reranker), points with a reranker only."""
    if "reranker.name" not in data.table:
        return None
    reranked = data.table[data.table["reranker.name"].astype(str) != "none"]
    drawn = curve_plot(data, reranked, "reranker.depth", "rerank depth", "candidates reranked")
    return None if drawn is None else drawn[0]


def dimension_plot(data: PlotData) -> Figure | None:
    """Metric vs embedding dimension, with each configuration's index size on a twin axis (dashed)."""
    drawn = curve_plot(data, data.table, "embedder.dimension", "embedding dimension", "")
    if drawn is None:
        return None
    fig, curves = drawn
    ax = fig.axes[0]
    twin = ax.twinx()
    scale, unit = byte_unit(data.table["index_bytes"].max())
    for label, x, part, color in curves:
        twin.plot(x, part["index_bytes"] / scale, "s--", color=color, alpha=0.6, label=f"{label}: index size")
    twin.set_ylabel(f"index size ({unit}, dashed lines)")
    twin.set_ylim(bottom=0)
    old = ax.get_legend()  # its handles carry each line's marker
    handles, labels = list(old.legend_handles), [t.get_text() for t in old.get_texts()]
    twin_handles, twin_labels = twin.get_legend_handles_labels()
    title = old.get_title().get_text()
    ax.get_legend().remove()
    ax.legend(
        handles + twin_handles,
        labels + twin_labels,
        loc="upper left",
        bbox_to_anchor=(1.12, 1.0),  # past the twin axis labels
        fontsize=8,
        title=title,
        title_fontsize=8,
        frameon=False,
    )
    return fig


def recall_at_k_plot(data: PlotData) -> Figure | None:
    """recall@k vs k for the best configurations; identical curves drawn once, the best drawn on top."""
    ks = sorted(int(c.split("@")[1]) for c in data.table.columns if c.startswith("recall@") and c[7:].isdigit())
    if len(ks) < 2:
        return None
    table = data.table.sort_values(data.metric, ascending=not higher_is_better(data.metric), kind="stable")
    lines = _distinct_curves(table, [f"recall@{k}" for k in ks])
    fig, (ax,) = figure()
    handles, labels = [], []
    for i, (rows, means) in enumerate(lines):
        best = bool(rows[0].get("best", False))
        label = point_label(rows[0], data.swept) + (" (best)" if best else "")
        if len(rows) > 1:
            label += f"; identical: {', '.join('#' + str(r['point']) for r in rows[1:])}"
        style = {"linewidth": 3.0, "zorder": 10, "color": "black"} if best else {"linewidth": 1.4, "zorder": 3}
        (line,) = ax.plot(ks, means, marker=MARKERS[i % len(MARKERS)], markersize=6, label=label, **style)
        handles.append(line)
        labels.append(label)
    ax.set_xscale("log")
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.minorticks_off()
    ax.set_xlabel("k (chunks retrieved, log scale)")
    ax.set_ylabel("recall@k (mean over questions)")
    ax.set_ylim(0, 1.02)
    shown = sum(len(rows) for rows, _ in lines)
    ax.set_title(f"recall@k vs k: top {shown} of {len(table)} configurations by {data.metric}")
    legend(ax, title="best: thick black line, drawn on top", handles=handles, labels=labels)
    return fig


def _distinct_curves(table: pd.DataFrame, columns: list[str]) -> list[tuple[list[pd.Series], list[float]]]:
    """The first MAX_LINES distinct curves in table order, each with every row that draws exactly it."""
    curves: list[tuple[list[pd.Series], list[float]]] = []
    for _, row in table.iterrows():
        means = [float(row[c]) for c in columns]
        same = next((rows for rows, seen in curves if np.array_equal(seen, means, equal_nan=True)), None)
        if same is not None:
            same.append(row)
        elif len(curves) < MAX_LINES:
            curves.append(([row], means))
    return curves


def _single(table: pd.DataFrame, column: str, default: str) -> str:
    values = table[column].dropna().unique() if column in table else []
    return str(values[0]) if len(values) == 1 else default


PLOTS: dict[str, Callable[[PlotData], Figure | None]] = {
    "metric_vs_chunk_size.png": chunk_size_plot,
    "recall_vs_k.png": recall_at_k_plot,
    "metric_vs_dimension.png": dimension_plot,
    "metric_vs_rerank_depth.png": rerank_depth_plot,
    "quality_vs_cost.png": cost_plot,
    "recall_vs_p95_latency.png": ann_tuning_plot,
}
