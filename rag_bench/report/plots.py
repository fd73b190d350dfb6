"""Tuning curves of a sweep as PNG files (matplotlib, Agg): only the plots the sweep has data for.

Each plot function takes the marked summary table and returns a Figure, or None when the
sweep did not vary what the plot needs (e.g. no second chunk size).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter  # noqa: E402

from rag_bench.report.ann_plot import ann_tuning_plot  # noqa: E402

MAX_LINES = 8  # curves per plot; the configurations with the highest metric are kept
SIZE = (8.5, 5.0)  # inches
DPI = 120


@dataclass(frozen=True)
class PlotData:
    """What every plot reads: the summary table (with ``best``), the headline metric, the swept columns."""

    table: pd.DataFrame
    metric: str
    swept: tuple[str, ...]


def make_plots(data: PlotData, out_dir: Path) -> list[Path]:
    """Write each plot the sweep has data for into ``out_dir``; return their paths."""
    written = []
    for name, draw in PLOTS.items():
        figure = draw(data)
        if figure is None:
            continue
        out_dir.mkdir(parents=True, exist_ok=True)
        figure.savefig(out_dir / name, dpi=DPI, bbox_inches="tight")
        written.append(out_dir / name)
    return written


def chunk_size_plot(data: PlotData) -> Figure | None:
    """Metric vs configured chunk size, a line (with its 95% band) per overlap, chunker or other setting."""
    unit = _single(data.table, "chunker.unit", "units")
    return _curve_plot(data, data.table, "chunker.size", "chunk size", unit)


def dimension_plot(data: PlotData) -> Figure | None:
    """Metric vs embedding dimension, with each configuration's index size on a twin axis."""
    figure = _curve_plot(data, data.table, "embedder.dimension", "embedding dimension", "")
    if figure is None:
        return None
    ax = figure.axes[0]
    twin = ax.twinx()
    scale, unit = _byte_unit(data.table["index_bytes"].max())
    curves = [line for line in ax.get_lines() if not line.get_label().startswith("_")]  # not the band edges
    for (label, part), line in zip(_curves(data, data.table, "embedder.dimension"), curves, strict=True):
        twin.plot(
            part["embedder.dimension"],
            part["index_bytes"] / scale,
            "s--",
            color=line.get_color(),
            alpha=0.7,
            label=f"{label}: index size",
        )
    twin.set_ylabel(f"index size ({unit}, dashed lines)")
    twin.set_ylim(bottom=0)
    handles, labels = ax.get_legend_handles_labels()
    twin_handles, twin_labels = twin.get_legend_handles_labels()
    ax.legend(
        handles + twin_handles,
        [f"{t}: {data.metric}" for t in labels] + twin_labels,
        loc="upper left",
        bbox_to_anchor=(1.12, 1.0),
        fontsize=8,
        title=ax.get_legend().get_title().get_text(),
        title_fontsize=8,
        frameon=False,
    )  # past the twin axis labels
    return figure


def rerank_depth_plot(data: PlotData) -> Figure | None:
    """Metric vs rerank depth (candidates sent to the reranker), points with a reranker only."""
    if "reranker.name" not in data.table:
        return None
    reranked = data.table[data.table["reranker.name"].astype(str) != "none"]
    return _curve_plot(data, reranked, "reranker.depth", "rerank depth", "candidates reranked")


def recall_at_k_plot(data: PlotData) -> Figure | None:
    """recall@k vs k, a line per configuration (the top MAX_LINES on the headline metric)."""
    ks = sorted(int(c.split("@")[1]) for c in data.table.columns if c.startswith("recall@") and c[7:].isdigit())
    if len(ks) < 2:
        return None
    table = data.table.sort_values(data.metric, ascending=False, kind="stable")
    figure, ax = _figure()
    for _, row in table.head(MAX_LINES).iterrows():
        means = [row[f"recall@{k}"] for k in ks]
        best = bool(row.get("best", False))
        label = _point_label(row, data.swept) + (" (best)" if best else "")
        ax.plot(ks, means, "o-", linewidth=2.6 if best else 1.4, label=label)
    ax.set_xscale("log")
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.minorticks_off()
    ax.set_xlabel("k (chunks retrieved, log scale)")
    ax.set_ylabel("recall@k (mean over questions)")
    ax.set_ylim(0, 1.02)
    shown = min(MAX_LINES, len(table))
    ax.set_title(f"recall@k vs k: top {shown} of {len(table)} configurations by {data.metric}")
    _legend(ax)
    return figure


def cost_plot(data: PlotData) -> Figure | None:
    """Quality vs cost (estimated API cost, or run time when no point cost money), Pareto front marked."""
    table = data.table.dropna(subset=[data.metric])
    if len(table) < 2:
        return None
    paid = table["cost_usd"].fillna(0).gt(0).any()
    cost = table["cost_usd"].fillna(0) if paid else table["seconds"]
    xlabel = "estimated API cost (USD)" if paid else "run time of the point (s, after cache reuse)"
    quality = table[data.metric].to_numpy()
    front = pareto_front(cost.to_numpy(dtype=float), quality)
    figure, ax = _figure()
    low, high = table[f"{data.metric}_low"], table[f"{data.metric}_high"]
    error = np.vstack([quality - low.fillna(table[data.metric]), high.fillna(table[data.metric]) - quality])
    ax.errorbar(cost, quality, yerr=error, fmt="o", color="tab:blue", alpha=0.6, capsize=3, label="sweep point")
    order = np.argsort(cost.to_numpy()[front])
    ax.plot(cost.to_numpy()[front][order], quality[front][order], "D-", color="tab:red", label="Pareto front")
    for x, y, point, on_front in zip(cost, quality, table["point"], front, strict=True):
        ax.annotate(
            f"#{point}",
            (x, y),
            xytext=(4, 4),
            textcoords="offset points",
            fontsize=8,
            fontweight="bold" if on_front else "normal",
        )
    if cost.min() > 0 and cost.max() / cost.min() > 20:
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))  # 1, 2, 5, 10, 20, ...
        ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        xlabel = xlabel[:-1] + ", log scale)"
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{data.metric} (mean, 95% interval)")
    ax.set_title(f"{data.metric} vs {'cost' if paid else 'run time'}: cheaper and better is up and left")
    _legend(ax)
    return figure


def pareto_front(cost: np.ndarray, quality: np.ndarray) -> np.ndarray:
    """(n,) bool: no other point costs at most as much and scores at least as high, one of them strictly."""
    front = np.ones(len(cost), dtype=bool)
    for i in range(len(cost)):
        no_worse = (cost <= cost[i]) & (quality >= quality[i])
        better = (cost < cost[i]) | (quality > quality[i])
        front[i] = not np.any(no_worse & better)
    return front


def _curve_plot(data: PlotData, table: pd.DataFrame, x: str, what: str, unit: str) -> Figure | None:
    """Metric vs ``x``: one line per setting of the other swept parameters, each with its 95% band."""
    if x not in table or table[x].dropna().nunique() < 2:
        return None
    curves = _curves(data, table, x)
    figure, ax = _figure()
    shade = 0.18 if len(curves) <= 2 else 0.07  # many overlapping bands would turn to mud
    for label, part in curves:
        (line,) = ax.plot(part[x], part[data.metric], "o-", label=label, zorder=3)
        low, high = part[f"{data.metric}_low"], part[f"{data.metric}_high"]
        ax.fill_between(part[x], low, high, color=line.get_color(), alpha=shade, linewidth=0)
        for edge in (low, high):
            ax.plot(part[x], edge, ":", color=line.get_color(), linewidth=0.8, alpha=0.7)
    ticks = sorted(table[x].dropna().unique())
    log = ticks[0] > 0 and ticks[-1] / ticks[0] >= 4
    if log:
        ax.set_xscale("log", base=2)
    ax.set_xticks(ticks, [_value(float(t)) for t in ticks])
    ax.minorticks_off()
    notes = ", ".join(n for n in (unit, "log scale" if log else "") if n)
    ax.set_xlabel(f"{what} ({notes})" if notes else what)
    ax.set_ylabel(f"{data.metric} (mean, 95% interval band)")
    total = len(_groups(data, table, x))
    shown = f" (top {len(curves)} of {total} settings)" if total > len(curves) else ""
    ax.set_title(f"{data.metric} vs {what}{shown}")
    _legend(ax, title="line: mean; shaded: 95% interval")
    return figure


def _curves(data: PlotData, table: pd.DataFrame, x: str) -> list[tuple[str, pd.DataFrame]]:
    """(label, rows sorted by x) per setting of the other swept columns, best MAX_LINES first."""
    groups = _groups(data, table, x)
    groups.sort(key=lambda item: -np.nan_to_num(item[1][data.metric].max(), nan=-np.inf))
    return groups[:MAX_LINES]


def _groups(data: PlotData, table: pd.DataFrame, x: str) -> list[tuple[str, pd.DataFrame]]:
    table = table.dropna(subset=[x])
    by = [c for c in data.swept if c != x and c in table and table[c].astype(str).nunique() > 1]
    if not by:
        return [(data.metric, table.sort_values(x))]
    parts = table.groupby([table[c].astype(str) for c in by], sort=False, dropna=False)
    return [(_setting(part.iloc[0], by), part.sort_values(x)) for _, part in parts]


def _point_label(row: pd.Series, swept: tuple[str, ...]) -> str:
    setting = _setting(row, [c for c in swept if c in row.index])
    return f"#{row['point']}: {setting}" if setting else f"#{row['point']}"


def _setting(row: pd.Series, columns: list[str]) -> str:
    return ", ".join(f"{c}={_value(row[c])}" for c in columns)


def _value(value: object) -> str:
    """A parameter value as the user wrote it: 400 not 400.0, null (a missing value) not nan."""
    if isinstance(value, float):
        if value != value:  # NaN: the setting was null
            return "null"
        return str(int(value)) if value.is_integer() else f"{value:g}"
    return str(value)


def _single(table: pd.DataFrame, column: str, default: str) -> str:
    values = table[column].dropna().unique() if column in table else []
    return str(values[0]) if len(values) == 1 else default


def _byte_unit(largest: float) -> tuple[float, str]:
    for scale, unit in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if largest >= scale:
            return float(scale), unit
    return 1.0, "bytes"


def _figure() -> tuple[Figure, Axes]:
    figure = Figure(figsize=SIZE)
    ax = figure.add_subplot()
    ax.grid(True, alpha=0.3)
    return figure, ax


def _legend(ax: Axes, title: str | None = None) -> None:
    """Legend to the right of the axes, outside the data."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, title=title, title_fontsize=8, frameon=False)


PLOTS: dict[str, Callable[[PlotData], Figure | None]] = {
    "metric_vs_chunk_size.png": chunk_size_plot,
    "recall_vs_k.png": recall_at_k_plot,
    "metric_vs_dimension.png": dimension_plot,
    "metric_vs_rerank_depth.png": rerank_depth_plot,
    "quality_vs_cost.png": cost_plot,
    "recall_vs_p95_latency.png": ann_tuning_plot,
}
