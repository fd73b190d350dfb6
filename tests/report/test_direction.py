"""A lower-is-better metric (leak@k) ranks lowest first everywhere: best point, ties, tables, plots, objective."""

import numpy as np
import pandas as pd
import pytest

from rag_bench.report.sweep.cli import ReportOptions, report_sweep
from rag_bench.report.sweep.collect import collect
from rag_bench.report.sweep.cost_plot import cost_plot
from rag_bench.report.sweep.marks import Marks, mark_points, with_marks
from rag_bench.report.sweep.plot_data import PlotData
from rag_bench.report.sweep.plots import chunk_size_plot, recall_at_k_plot
from rag_bench.score.names import higher_is_better, maximised
from rag_bench.score.selection import mark_best

# leak@10 per question at three chunk sizes: 200 leaks 0.4 everywhere (the leakiest), 400 nothing
# (the best), 800 one chunk in one question (one paired difference: Holm p 0.5, a tie)
LEAKS = {200: [0.4] * 8, 400: [0.0] * 8, 800: [0.0] * 7 + [0.1]}


@pytest.fixture
def leak_sweep(tmp_path, make_point):
    root = tmp_path / "sweep"
    for num, (size, leaks) in enumerate(LEAKS.items()):
        recall = [0.9] * 8 if size == 200 else [0.5] * 8  # the leakiest point has the best recall
        make_point(
            root / str(num),
            [f"chunker.size={size}"],
            {"leak@10": leaks, "recall@5": recall, "recall@10": recall},
            config={"chunker.size": size},
        )
    return root


def test_the_metric_table_gives_each_direction():
    assert higher_is_better("recall@10") and higher_is_better("precision_omega")
    assert not higher_is_better("leak@5")
    assert (maximised("leak@10", 0.4), maximised("ndcg@10", 0.4)) == (-0.4, 0.4)


def test_the_least_leaky_point_is_best_and_the_leakiest_is_significantly_worse(leak_sweep):
    marks = mark_points(collect(leak_sweep), "leak@10")
    best, leakiest, close = marks.marks["1"], marks.marks["0"], marks.marks["2"]
    assert (best.best, best.mean) == (True, 0.0)
    # best better than 200 on all 8 questions: p = 1/256, Holm x2; than 800 on one question: p = 1/2
    assert (leakiest.best, leakiest.tied, leakiest.p_value, leakiest.p_holm) == (False, False, 1 / 256, 2 / 256)
    assert (close.tied, close.p_value) == (True, 0.5)
    assert marks.choice.point == "1"  # chosen on dev questions by the same direction
    assert marks.differences["0"].mean == pytest.approx(0.4)  # point - best: a worse leak is a positive difference


def test_mark_best_by_direction_and_the_untested_fallback():
    scores = {"a": np.array([0.5, 0.5]), "b": np.array([0.0, 0.1])}
    assert mark_best(scores)["a"].best and mark_best(scores, higher_is_better=False)["b"].best
    table = pd.DataFrame({"point": ["a", "b"], "leak@10": [0.5, 0.05]})
    marks = Marks("leak@10", None, None, ())  # points not paired: nothing tested
    assert list(with_marks(table, marks)["best"]) == [False, True]


def test_report_lists_the_least_leaky_point_first(leak_sweep, tmp_path):
    report_sweep(leak_sweep, tmp_path / "out", ReportOptions(metric="leak@10"))
    text = (tmp_path / "out" / "report.md").read_text()
    assert "best = lowest mean (leak@10 is lower-is-better); tie = not significantly worse" in text
    assert "- best on leak@10: #1 (chunker.size=400) leak@10 = 0.000" in text
    assert "- not significantly worse than the best: #2" in text
    lines = text.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("|  | point")))
    rows = lines[start + 2 : start + 5]
    assert [row.split(" | ")[1].strip("*") for row in rows] == ["#1", "#2", "#0"]
    assert rows[0].startswith("| **best** |") and rows[1].startswith("| tie |")


def test_plots_rank_by_the_metrics_direction(leak_sweep):
    sweep = collect(leak_sweep)
    data = PlotData(with_marks(sweep.table, mark_points(sweep, "leak@10")), "leak@10", tuple(sweep.swept))
    ax = chunk_size_plot(data).axes[0]
    assert ax.get_title() == "leak@10 vs chunk size, as difference from the best point #1 (leak@10 = 0.000)"
    ax = recall_at_k_plot(data).axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["#1: chunker.size=400 (best); identical: #2", "#0: chunker.size=200"]  # least leaky on top
    # quality vs cost: cost rises with the point number; lower leak is better, so #0 (cheapest) and #1 are on the
    # front and #2 (dearer than #1, leaks more) is not; as higher-is-better only #0 would be
    table = data.table.assign(index_bytes=[1024.0, 2048.0, 4096.0])
    fig = cost_plot(PlotData(table, "leak@10", ()))
    front = next(line for line in fig.axes[0].get_lines() if line.get_label() == "Pareto front")
    assert list(front.get_xdata()) == [1.0, 2.0]
    assert fig._suptitle.get_text().endswith("cheaper and better is down and left")
