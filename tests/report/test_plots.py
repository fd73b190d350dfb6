import numpy as np
import pandas as pd
import pytest

from rag_bench.report.plots import PlotData, chunk_size_plot, cost_plot, make_plots, pareto_front
from rag_bench.report.sweep import collect, mark_points, with_marks


def plot_data(root, metric="ndcg@10"):
    sweep = collect(root)
    marks = mark_points(sweep, metric)
    return PlotData(with_marks(sweep.table, marks), metric, tuple(sweep.swept))


def points(make_point, root, settings):
    """One point per settings dict: {"override": [...], "config": {...}, "scores": {...}}; later points cost more."""
    for num, one in enumerate(settings):
        stats = {"chunks": 10, "embedded": 0, "cache_hits": 0, "index_bytes": 1000 * (num + 1), "seconds": {"all": num}}
        make_point(root / str(num), one["override"], one["scores"], config=one.get("config"), stats=stats)
    return root


def scores(value, n=4):
    return {"ndcg@10": [value] * n, "recall@5": [value / 2] * n, "recall@10": [value] * n}


def setting(value, params):
    """A point scoring ``value`` on every question, overriding ``params`` (dotted keys also set config.yaml)."""
    config = {key: v for key, v in params.items() if "." in key}
    return {"override": [f"{key}={v}" for key, v in params.items()], "config": config, "scores": scores(value)}


def test_pareto_front_by_hand():
    # point 1 costs more than point 0 and scores lower; point 3 scores as point 2 at a higher cost
    front = pareto_front(np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.5, 0.4, 0.7, 0.7]))
    assert list(front) == [True, False, True, False]


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        (  # chunk size x overlap
            [setting(s / 1000 + o, {"chunker.size": s, "chunker.overlap": o}) for s in (200, 400) for o in (0.0, 0.2)],
            {"metric_vs_chunk_size.png", "recall_vs_k.png", "quality_vs_cost.png"},
        ),
        (  # dimension
            [setting(d / 100, {"embedder.dimension": d}) for d in (16, 64)],
            {"metric_vs_dimension.png", "recall_vs_k.png", "quality_vs_cost.png"},
        ),
        (  # rerank depth with a reranker
            [setting(d / 100, {"reranker.name": "maxsim", "reranker.depth": d}) for d in (10, 20)],
            {"metric_vs_rerank_depth.png", "recall_vs_k.png", "quality_vs_cost.png"},
        ),
        (  # rerank depth swept without a reranker: nothing to plot against depth
            [setting(d / 100, {"reranker.depth": d}) for d in (10, 20)],
            {"recall_vs_k.png", "quality_vs_cost.png"},
        ),
        (  # one point, one k: no curve at all
            [{"override": ["retrieval=bm25"], "scores": {"ndcg@10": [1.0, 0.0]}}],
            set(),
        ),
    ],
    ids=["chunk-size", "dimension", "rerank-depth", "no-reranker", "single-point"],
)
def test_each_plot_exists_exactly_when_the_sweep_has_its_data(tmp_path, make_point, settings, expected):
    root = points(make_point, tmp_path / "sweep", settings)
    written = make_plots(plot_data(root), tmp_path / "plots")
    assert {p.name for p in written} == expected
    assert {p.name for p in (tmp_path / "plots").glob("*.png")} == expected
    for path in written:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def test_chunk_size_lines_per_overlap_with_labels_and_units(tmp_path, make_point):
    sizes, overlaps = (200, 400, 800), (0.0, 0.2)
    settings = [setting(s / 1000 + o, {"chunker.size": s, "chunker.overlap": o}) for s in sizes for o in overlaps]
    figure = chunk_size_plot(plot_data(points(make_point, tmp_path, settings)))
    ax = figure.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["chunker.overlap=0.2", "chunker.overlap=0"]
    assert ax.get_xlabel() == "chunk size (chars, log scale)" and ax.get_title() == "ndcg@10 vs chunk size"
    means = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert list(means[0].get_xdata()) == [200, 400, 800]
    assert list(means[0].get_ydata()) == pytest.approx([0.4, 0.6, 1.0])


def test_more_settings_than_lines_keeps_the_best(tmp_path, make_point):
    settings = [
        setting(s / 1000 + d / 100, {"chunker.size": s, "retrieval.depth": d}) for s in (200, 400) for d in range(1, 11)
    ]
    ax = chunk_size_plot(plot_data(points(make_point, tmp_path, settings))).axes[0]
    assert ax.get_title() == "ndcg@10 vs chunk size (top 8 of 10 settings)"
    assert ax.get_legend().get_texts()[0].get_text() == "retrieval.depth=10"


def test_cost_axis_is_money_when_any_point_cost_money_else_seconds():
    table = pd.DataFrame(
        {
            "point": ["0", "1"],
            "ndcg@10": [0.5, 0.6],
            "ndcg@10_low": [0.4, 0.5],
            "ndcg@10_high": [0.6, 0.7],
            "cost_usd": [0.0, 0.0],
            "seconds": [1.0, 2.0],
            "best": [False, True],
        }
    )
    assert cost_plot(PlotData(table, "ndcg@10", ())).axes[0].get_xlabel().startswith("run time of the point (s")
    paid = table.assign(cost_usd=[0.01, 0.03])
    ax = cost_plot(PlotData(paid, "ndcg@10", ())).axes[0]
    assert ax.get_xlabel() == "estimated API cost (USD)"
    front = [line for line in ax.get_lines() if line.get_label() == "Pareto front"][0]
    assert list(front.get_xdata()) == [0.01, 0.03]  # both on the front: the dearer one scores higher


def test_null_settings_are_labelled_null_not_nan():
    from rag_bench.report.plots import _value

    assert [_value(float("nan")), _value(400.0), _value(0.15), _value("hybrid")] == ["null", "400", "0.15", "hybrid"]
