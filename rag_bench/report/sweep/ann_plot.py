"""The approximate-search tuning curve: retrieval quality against p95 query latency, one line per index method.

Each line joins a method's points (e.g. pgvector HNSW at ef_search 10 ... 200) in order of
latency, one line per filter mode when the sweep varied it; exact search, the reference,
is drawn as a dashed horizontal line at its quality (and its latency marked on it).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from rag_bench.report.sweep.plot_data import PlotData
from rag_bench.report.sweep.plot_style import SIZE

LATENCY = "latency_ms_p95"
METHOD_KEYS = ("retrieval.index.method", "retrieval/index", "retrieval.index")  # first one the sweep set wins
SERIES_KEYS = ("retrieval.filter_mode",)


def ann_tuning_plot(data: PlotData) -> Figure | None:
    """recall@10 (else the headline metric) vs p95 latency per method, exact search as the reference."""
    table = data.table
    method = next((k for k in METHOD_KEYS if k in table and table[k].notna().any()), None)
    if method is None or LATENCY not in table or table[LATENCY].notna().sum() < 2:
        return None
    metric = "recall@10" if "recall@10" in table else data.metric
    series = [k for k in SERIES_KEYS if k in table and table[k].astype(str).nunique() > 1]
    figure = Figure(figsize=SIZE)
    ax = figure.add_subplot()
    ax.grid(True, alpha=0.3)
    exact = table[table[method].astype(str) == "exact"]
    for key, part in table[table[method].astype(str) != "exact"].groupby([table[method].astype(str), *series]):
        part = part.dropna(subset=[LATENCY, metric]).sort_values(LATENCY)
        label = ", ".join(str(k) for k in (key if isinstance(key, tuple) else (key,)))
        ax.plot(part[LATENCY], part[metric], "o-", label=label, zorder=3)
        for _, row in part.iterrows():
            knob = _knob(row)
            if knob:
                ax.annotate(knob, (row[LATENCY], row[metric]), fontsize=7, xytext=(3, 3), textcoords="offset points")
    references = exact.groupby([exact[c].astype(str) for c in series]) if series else [("exact", exact)]
    for key, part in references if len(exact) else []:  # a sweep without exact search has no reference line
        quality, latency = float(part[metric].mean()), float(np.median(part[LATENCY]))
        line = ax.axhline(quality, linestyle="--", linewidth=1, color="black", alpha=0.6)
        ax.plot([latency], [quality], "s", color=line.get_color(), label=f"exact {_name(key)}".strip())
    ax.set_xscale("log")
    ax.set_xlabel("p95 query latency (ms, log scale)")
    ax.set_ylabel(f"{metric} (mean)")
    ax.set_title(f"{metric} vs p95 latency per index method (dashed: exact search)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)
    return figure


def _knob(row: pd.Series) -> str:
    for key, short in (("retrieval.index.ef_search", "ef"), ("retrieval.index.probes", "probes")):
        if key in row and pd.notna(row[key]):
            value = row[key]
            return f"{short}={int(value) if isinstance(value, float) and value.is_integer() else value}"
    return ""


def _name(key: object) -> str:
    return "" if key == "exact" else ", ".join(map(str, key if isinstance(key, tuple) else (key,)))
