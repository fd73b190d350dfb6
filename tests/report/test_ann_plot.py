"""The recall vs p95 latency tuning curve: drawn from a sweep table with latencies, absent without them."""

import pandas as pd

from rag_bench.report.sweep.ann_plot import ann_tuning_plot
from rag_bench.report.sweep.plot_data import PlotData
from rag_bench.report.sweep.plots import PLOTS


def _table(latency=True):
    rows = []
    for method in ("exact", "hnsw"):
        for ef, recall, p95 in ((10, 0.6, 1.0), (40, 0.8, 2.0), (200, 0.82, 4.0)):
            rows.append(
                {
                    "retrieval.index.method": method,
                    "retrieval.index.ef_search": ef,
                    "recall@10": 0.83 if method == "exact" else recall,
                    "latency_ms_p95": (5.0 if method == "exact" else p95) if latency else float("nan"),
                }
            )
    return pd.DataFrame(rows)


def test_curve_per_method_with_exact_reference():
    figure = ann_tuning_plot(PlotData(_table(), "ndcg@10", ("retrieval.index.method", "retrieval.index.ef_search")))
    ax = figure.axes[0]
    hnsw = [line for line in ax.get_lines() if line.get_label() == "hnsw"][0]
    assert list(hnsw.get_xdata()) == [1.0, 2.0, 4.0] and list(hnsw.get_ydata()) == [0.6, 0.8, 0.82]
    reference = [line for line in ax.get_lines() if list(line.get_ydata()) == [0.83, 0.83]]
    assert reference, "exact search is drawn as a horizontal reference line"
    assert ax.get_xlabel().startswith("p95 query latency")
    assert PLOTS["recall_vs_p95_latency.png"] is ann_tuning_plot


def test_no_latency_no_plot():
    assert ann_tuning_plot(PlotData(_table(latency=False), "ndcg@10", ("retrieval.index.method",))) is None
