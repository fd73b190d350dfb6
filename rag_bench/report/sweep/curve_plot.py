"""Metric against one swept parameter, a line per setting of the other swept parameters (``plots.py`` uses it).

Curves against a parameter (chunk size, dimension, rerank depth) plot each point's paired
difference from the best point, mean over questions of (point - best) with its 95% interval
(``marks.py``): that is what the Holm tests judge, and its intervals are narrow where the
points' own intervals, all overlapping, would say nothing. Filled markers are points not
significantly worse than the best, hollow ones are worse. Lines are nudged apart on the x-axis
so their intervals do not hide each other. When the points could not be paired (different
questions) the curves show each point's mean and own interval instead, and say so.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from rag_bench.report.sweep.marks import DIFF
from rag_bench.report.sweep.plot_data import PlotData
from rag_bench.report.sweep.plot_style import MARKERS, MAX_LINES, figure, legend, setting, value
from rag_bench.score.names import maximised

DODGE = 0.025  # horizontal nudge between neighbouring lines, in log2 units (log axes) or share of the range


def curve_plot(
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
    """(label, rows sorted by x) per setting of the other swept columns, best MAX_LINES first (each by its best
    point, by the metric's direction)."""
    groups = _groups(data, table, x)
    groups.sort(key=lambda item: -np.nan_to_num(maximised(data.metric, item[1][data.metric]).max(), nan=-np.inf))
    return groups[:MAX_LINES]


def _groups(data: PlotData, table: pd.DataFrame, x: str) -> list[tuple[str, pd.DataFrame]]:
    by = [c for c in data.swept if c != x and c in table and table[c].astype(str).nunique() > 1]
    if not by:
        return [(data.metric, table.sort_values(x))]
    parts = table.groupby([table[c].astype(str) for c in by], sort=False, dropna=False)
    return [(setting(part.iloc[0], by), part.sort_values(x)) for _, part in parts]
