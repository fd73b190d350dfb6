"""Tuning curves of a sweep as PNG files (matplotlib, Agg): only the plots the sweep has data for.

Each plot function takes the marked summary table and returns a Figure, or None when the
sweep did not vary what the plot needs (e.g. no second chunk size).

Curves against a parameter (chunk size, dimension, rerank depth) plot each point's paired
difference from the best point, mean over questions of (point - best) with its 95% interval
(``marks.py``): that is what the Holm tests judge, and its intervals are narrow where the
points' own intervals, all overlapping, would say nothing. Filled markers are points not
significantly worse than the best, hollow ones are worse. Lines are nudged apart on the x-axis
so their intervals do not hide each other. When the points could not be paired (different
questions) the curves show each point's mean and own interval instead, and say so.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from rag_bench.files import write_via
from rag_bench.report.ann_plot import ann_tuning_plot
from rag_bench.report.cost_plot import cost_plot
from rag_bench.report.marks import DIFF
from rag_bench.report.plot_style import (
    DPI,
    MARKERS,
    MAX_LINES,
    PlotData,
    byte_unit,
    figure,
    legend,
    point_label,
    setting,
    value,
)

DODGE = 0.025  # horizontal nudge between neighbouring lines, in log2 units (log axes) or share of the range


def make_plots(data: PlotData, out_dir: Path) -> list[Path]:
    """Write each plot the sweep has data for into ``out_dir``; return their paths."""
    written = []
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
    drawn = _curve_plot(data, data.table, "chunker.size", "chunk size", unit)
    return None if drawn is None else drawn[0]


def rerank_depth_plot(data: PlotData) -> Figure | None:
    """Metric vs rerank depth (candidates sent to the reranker), points with a reranker only."""
    if "reranker.name" not in data.table:
        return None
    reranked = data.table[data.table["reranker.name"].astype(str) != "none"]
    drawn = _curve_plot(data, reranked, "reranker.depth", "rerank depth", "candidates reranked")
    return None if drawn is None else drawn[0]


def dimension_plot(data: PlotData) -> Figure | None:
    """Metric vs embedding dimension, with each configuration's index size on a twin axis (dashed)."""
    drawn = _curve_plot(data, data.table, "embedder.dimension", "embedding dimension", "")
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
    table = data.table.sort_values(data.metric, ascending=False, kind="stable")
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


def _curve_plot(
    data: PlotData, table: pd.DataFrame, x: str, what: str, unit: str
) -> tuple[Figure, list[tuple[str, pd.Series, pd.DataFrame, str]]] | None:
    """Metric vs ``x``, a line per setting of the other swept parameters; also (label, x positions, rows, colour)."""
    if x not in table or table[x].nunique(dropna=False) < 2 or table[x].dropna().empty:
        return None
    paired = DIFF in table and table[DIFF].notna().all()
    y, low, high = (DIFF, f"{DIFF}_low", f"{DIFF}_high") if paired else (data.metric, None, None)
    curves = _curves(data, table, x)
    fig, (ax,) = figure()
    ticks, null_at, log = _axis(table[x])
    gap = min(np.diff([*ticks, *([] if null_at is None else [null_at])]), default=1.0)
    drawn, handles = [], []
    for i, (label, part) in enumerate(curves):
        nudge = (i - (len(curves) - 1) / 2) * DODGE
        at = part[x].fillna(
            np.nan if null_at is None else null_at
        )  # a null setting sits one step past the largest value
        xs = at * 2**nudge if log else at + nudge * gap
        lows = part[low] if low else part[f"{data.metric}_low"]
        highs = part[high] if high else part[f"{data.metric}_high"]
        error = np.vstack([part[y] - lows, highs - part[y]])
        bars = ax.errorbar(xs, part[y], yerr=error, fmt="-", capsize=3, linewidth=1.4, label=label, zorder=3)
        color = bars.lines[0].get_color()
        tied = part["tied"].astype(bool).to_numpy() if "tied" in part else np.ones(len(part), bool)
        marker = MARKERS[i % len(MARKERS)]
        ax.scatter(xs[tied], part[y][tied], marker=marker, color=color, zorder=4, s=36)
        ax.scatter(xs[~tied], part[y][~tied], marker=marker, facecolor="white", edgecolor=color, zorder=4, s=36)
        drawn.append((label, at, part, color))
        handles.append(Line2D([], [], color=color, marker=marker, linewidth=1.4))
    if log:
        ax.set_xscale("log", base=2)
    labels = [value(float(t)) for t in ticks] + ([] if null_at is None else ["null"])
    ax.set_xticks([*ticks, *([] if null_at is None else [null_at])], labels)
    ax.minorticks_off()
    notes = ", ".join(n for n in (unit, "log scale" if log else "") if n)
    ax.set_xlabel(f"{what} ({notes})" if notes else what)
    total = len(_groups(data, table, x))
    shown = f"; top {len(curves)} of {total} settings" if total > len(curves) else ""
    if paired:
        best = data.table[data.table["best"].astype(bool)].iloc[0]
        ax.axhline(0.0, color="grey", linestyle="--", linewidth=1, zorder=1)
        ax.set_ylabel(f"{data.metric}: point minus best point (paired, 95% interval)")
        ax.set_title(
            f"{data.metric} vs {what}, as difference from the best point #{best['point']} "
            f"({data.metric} = {best[data.metric]:.3f}){shown}",
            fontsize=10,
        )
        title = "filled: not significantly worse than the best\nhollow: significantly worse (Holm)"
        legend(ax, title=title, handles=handles, labels=[label for label, *_ in drawn])
    else:
        ax.set_ylabel(f"{data.metric} (mean, 95% interval; points not paired)")
        ax.set_title(f"{data.metric} vs {what}{shown}", fontsize=10)
        title = "points scored different questions:\nmeans with their own intervals"
        legend(ax, title=title, handles=handles, labels=[label for label, *_ in drawn])
    return fig, drawn


def _axis(column: pd.Series) -> tuple[list[float], float | None, bool]:
    """The x ticks (distinct values), where a null setting is drawn (None when there is none), and log scale."""
    ticks = sorted(float(v) for v in column.dropna().unique())
    log = ticks[0] > 0 and ticks[-1] / ticks[0] >= 4
    if not column.isna().any():
        return ticks, None, log
    step = (ticks[-1] - ticks[0]) / (len(ticks) - 1) if len(ticks) > 1 else max(abs(ticks[0]), 1.0)
    return ticks, (ticks[-1] * 2 if log else ticks[-1] + step), log


def _curves(data: PlotData, table: pd.DataFrame, x: str) -> list[tuple[str, pd.DataFrame]]:
    """(label, rows sorted by x) per setting of the other swept columns, best MAX_LINES first."""
    groups = _groups(data, table, x)
    groups.sort(key=lambda item: -np.nan_to_num(item[1][data.metric].max(), nan=-np.inf))
    return groups[:MAX_LINES]


def _groups(data: PlotData, table: pd.DataFrame, x: str) -> list[tuple[str, pd.DataFrame]]:
    by = [c for c in data.swept if c != x and c in table and table[c].astype(str).nunique() > 1]
    if not by:
        return [(data.metric, table.sort_values(x))]
    parts = table.groupby([table[c].astype(str) for c in by], sort=False, dropna=False)
    return [(setting(part.iloc[0], by), part.sort_values(x)) for _, part in parts]


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
