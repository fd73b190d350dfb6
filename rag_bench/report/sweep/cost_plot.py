"""Quality vs measured cost, with the Pareto front: costs that are the same for a point whatever the sweep order.

A point's run time and its ``embedded``/``cost_usd`` depend on what earlier points left in the
cache (whichever point embeds a text first pays for it), so a front drawn over them is an
artefact of the order. The x-axis is instead, by what the points recorded:
- estimated API cost of the configuration (``work_cost_usd``), when any point calls a priced API;
- else two panels: model input of the configuration (``work_chars``, characters embedded and
  reranked, ``run_folder/work.py``) and index size (``index_bytes``);
- index size alone when the runs did not record their work (written by an older version).
The plot says which in its axis labels and title.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

from rag_bench.report.sweep.plot_data import PlotData
from rag_bench.report.sweep.plot_style import byte_unit, figure, legend
from rag_bench.report.sweep.work import TRUNCATION_WARNING
from rag_bench.score.names import higher_is_better, maximised

API_COST = ("work_cost_usd", "estimated API cost of the configuration (USD)")
MODEL_INPUT = ("work_chars", "model input of the configuration (million characters embedded or reranked)")
INDEX_SIZE = ("index_bytes", "index size")


def cost_axes(table: pd.DataFrame) -> list[tuple[str, str]]:
    """(column, axis label) of each panel, by the rule in the module docstring; [] when no cost is known."""
    recorded = [c for c, _ in (API_COST, MODEL_INPUT, INDEX_SIZE) if c in table and table[c].notna().all()]
    if API_COST[0] in recorded and table[API_COST[0]].gt(0).any():
        return [API_COST]
    return [axis for axis in (MODEL_INPUT, INDEX_SIZE) if axis[0] in recorded]


def cost_plot(data: PlotData) -> Figure | None:
    """Quality vs measured cost (see the module docstring), Pareto front marked in each panel."""
    table = data.table.dropna(subset=[data.metric])
    axes = cost_axes(table)
    if len(table) < 2 or not axes:
        return None
    fig, panels = figure((8.5 if len(axes) == 1 else 13.0, 5.0), columns=len(axes))
    for ax, (column, label) in zip(panels, axes, strict=True):
        _panel(ax, table, data.metric, column, label)
    panels[0].set_ylabel(f"{data.metric} (mean, 95% interval)")
    which = " and ".join(label.split(" (")[0] for _, label in axes)
    missing = "" if len(axes) > 1 or axes[0] == API_COST else " (model input not recorded by these runs)"
    where = "up" if higher_is_better(data.metric) else "down"  # leak@k: lower is better
    fig.suptitle(f"{data.metric} vs {which}{missing}: cheaper and better is {where} and left", fontsize=11)
    legend(panels[-1])
    return fig


def _panel(ax: Axes, table: pd.DataFrame, metric: str, column: str, label: str) -> None:
    scale, unit = _scale(column, table[column].max())
    cost = table[column].to_numpy(dtype=float) / scale
    quality = table[metric].to_numpy(dtype=float)
    front = pareto_front(cost, maximised(metric, quality))
    low = table[f"{metric}_low"].fillna(table[metric]).to_numpy(dtype=float)
    high = table[f"{metric}_high"].fillna(table[metric]).to_numpy(dtype=float)
    ax.errorbar(
        cost,
        quality,
        yerr=np.vstack([quality - low, high - quality]),
        fmt="o",
        color="tab:blue",
        alpha=0.6,
        capsize=3,
        label="sweep point",
    )
    order = np.argsort(cost[front], kind="stable")
    ax.plot(cost[front][order], quality[front][order], "D-", color="tab:red", label="Pareto front", zorder=5)
    cut = table["truncated_share"] if "truncated_share" in table else pd.Series(np.nan, index=table.index)
    for x, y, point, on_front, share in zip(cost, quality, table["point"], front, cut, strict=True):
        ax.annotate(
            f"#{point}" + (f" ({share:.0%} truncated)" if share > TRUNCATION_WARNING else ""),
            (x, y),
            xytext=(4, 4),
            textcoords="offset points",
            fontsize=8,
            fontweight="bold" if on_front else "normal",
        )
    xlabel = f"{label} ({unit})" if unit else label
    if cost.min() > 0 and cost.max() / cost.min() > 20:
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))  # 1, 2, 5, 10, 20, ...
        ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        xlabel += ", log scale"
    else:
        ax.set_xlim(left=0)
    ax.set_xlabel(xlabel)


def _scale(column: str, largest: float) -> tuple[float, str]:
    if column == INDEX_SIZE[0]:
        return byte_unit(largest)
    if column == MODEL_INPUT[0]:
        return 1e6, ""  # the label says million characters
    return 1.0, ""


def pareto_front(cost: np.ndarray, quality: np.ndarray) -> np.ndarray:
    """(n,) bool: no other point costs at most as much and scores at least as high, one of them strictly
    (``quality`` oriented so that more is better: ``names.maximised``)."""
    front = np.ones(len(cost), dtype=bool)
    for i in range(len(cost)):
        no_worse = (cost <= cost[i]) & (quality >= quality[i])
        better = (cost < cost[i]) | (quality > quality[i])
        front[i] = not np.any(no_worse & better)
    return front
