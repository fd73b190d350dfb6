import numpy as np
import pandas as pd
import pytest

from rag_bench.report.sweep.collect import collect
from rag_bench.report.sweep.cost_plot import cost_plot, pareto_front
from rag_bench.report.sweep.marks import mark_points, with_marks
from rag_bench.report.sweep.plot_data import PlotData
from rag_bench.report.sweep.plot_style import value
from rag_bench.report.sweep.plots import chunk_size_plot, dimension_plot, make_plots, recall_at_k_plot


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


def setting(value, params, n=4):
    """A point scoring ``value`` on every question, overriding ``params`` (dotted keys also set config.yaml)."""
    config = {key: v for key, v in params.items() if "." in key}
    overrides = [f"{key}={'null' if v is None else v}" for key, v in params.items()]
    return {"override": overrides, "config": config, "scores": scores(value, n)}


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


def test_chunk_size_curves_are_paired_differences_from_the_best_point(tmp_path, make_point):
    sizes, overlaps = (200, 400, 800), (0.0, 0.2)
    settings = [setting(s / 1000 + o, {"chunker.size": s, "chunker.overlap": o}) for s in sizes for o in overlaps]
    ax = chunk_size_plot(plot_data(points(make_point, tmp_path, settings))).axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["chunker.overlap=0.2", "chunker.overlap=0"]
    assert ax.get_xlabel() == "chunk size (chars, log scale)"
    # best: size 800, overlap 0.2, ndcg@10 = 1.0 on every question (point #5)
    assert ax.get_title() == "ndcg@10 vs chunk size, as difference from the best point #5 (ndcg@10 = 1.000)"
    first, second = (container.lines[0] for container in ax.containers)
    assert list(first.get_ydata()) == pytest.approx([0.4 - 1, 0.6 - 1, 0.0])  # overlap 0.2 minus the best
    assert list(second.get_ydata()) == pytest.approx([0.2 - 1, 0.4 - 1, 0.8 - 1])
    # two lines nudged apart by 0.025 log2 units, half each way, so their bars do not cover each other
    assert list(first.get_xdata()) == pytest.approx([s * 2**-0.0125 for s in sizes])
    assert list(second.get_xdata()) == pytest.approx([s * 2**0.0125 for s in sizes])


def test_filled_markers_are_the_points_not_significantly_worse(tmp_path, make_point):
    per_question = {200: [0.0] * 8, 400: [1.0] * 8, 800: [1.0] * 7 + [0.0]}
    for num, (size, values) in enumerate(per_question.items()):
        make_point(tmp_path / str(num), [f"chunker.size={size}"], {"ndcg@10": values}, config={"chunker.size": size})
    ax = chunk_size_plot(plot_data(tmp_path)).axes[0]
    filled, hollow = ax.collections[-2:]  # scatter of tied points, then of significantly worse points
    # best 400 and 800 (one question lower, Holm p = 0.5) are tied; 200 (8 of 8 lower, p = 2/256) is not
    assert np.asarray(filled.get_offsets()).tolist() == [[400, 0.0], [800, -1 / 8]]
    assert np.asarray(hollow.get_offsets()).tolist() == [[200, -1.0]]
    assert tuple(hollow.get_facecolor()[0]) == (1.0, 1.0, 1.0, 1.0)


def test_a_null_setting_gets_its_own_tick(tmp_path, make_point):
    settings = [setting(d, {"embedder.dimension": d}) for d in (16, 32)] + [setting(0.5, {"embedder.dimension": None})]
    ax = dimension_plot(plot_data(points(make_point, tmp_path, settings))).axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["16", "32", "null"]
    assert list(ax.get_xticks()) == [16, 32, 48]  # one step (16) past the largest value
    (line,) = (container.lines[0] for container in ax.containers)
    assert list(line.get_xdata()) == [16, 32, 48]


def test_more_settings_than_lines_keeps_the_best(tmp_path, make_point):
    settings = [
        setting(s / 1000 + d / 100, {"chunker.size": s, "retrieval.depth": d}) for s in (200, 400) for d in range(1, 11)
    ]
    ax = chunk_size_plot(plot_data(points(make_point, tmp_path, settings))).axes[0]
    assert ax.get_title().endswith("; top 8 of 10 settings")
    assert ax.get_legend().get_texts()[0].get_text() == "retrieval.depth=10"


def test_recall_at_k_draws_the_best_on_top_and_identical_curves_once(tmp_path, make_point):
    settings = [setting(0.5, {"x": 1}), setting(0.9, {"x": 2}), setting(0.5, {"x": 3}), setting(0.7, {"x": 4})]
    ax = recall_at_k_plot(plot_data(points(make_point, tmp_path, settings))).axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["#1: x=2 (best)", "#3: x=4", "#0: x=1; identical: #2"]
    lines = ax.get_lines()
    assert len(lines) == 3 and lines[0].get_zorder() > max(line.get_zorder() for line in lines[1:])
    assert list(lines[0].get_ydata()) == [0.45, 0.9]
    assert ax.get_title() == "recall@k vs k: top 4 of 4 configurations by ndcg@10"
    assert lines[0].get_linewidth() > lines[1].get_linewidth()


def cost_table(**columns):
    base = {
        "point": ["0", "1", "2"],
        "ndcg@10": [0.5, 0.6, 0.55],
        "ndcg@10_low": [0.4, 0.5, 0.45],
        "ndcg@10_high": [0.6, 0.7, 0.65],
        "index_bytes": [2048.0, 4096.0, 8192.0],
        "seconds": [9.0, 0.1, 0.2],  # run time depends on sweep order: never plotted
        "best": [False, True, False],
    }
    return PlotData(pd.DataFrame({**base, **columns}), "ndcg@10", ())


def test_cost_plot_uses_model_input_and_index_size_never_run_time():
    fig = cost_plot(cost_table(work_chars=[0.0, 2e6, 1e6], work_cost_usd=[np.nan] * 3))
    left, right = fig.axes
    assert left.get_xlabel() == "model input of the configuration (million characters embedded or reranked)"
    assert right.get_xlabel() == "index size (KiB)"
    assert fig._suptitle.get_text().startswith("ndcg@10 vs model input of the configuration and index size")
    front = [line for line in left.get_lines() if line.get_label() == "Pareto front"][0]
    assert list(front.get_xdata()) == [0.0, 1.0, 2.0]  # all three: each dearer point scores higher
    front = [line for line in right.get_lines() if line.get_label() == "Pareto front"][0]
    assert list(front.get_xdata()) == [2.0, 4.0]  # point 2 costs most and scores below point 1


def test_cost_plot_prefers_the_configurations_api_cost():
    fig = cost_plot(cost_table(work_chars=[1.0, 2.0, 3.0], work_cost_usd=[0.01, 0.03, 0.02]))
    (ax,) = fig.axes
    assert ax.get_xlabel() == "estimated API cost of the configuration (USD)"


def test_cost_plot_says_when_the_runs_recorded_no_model_input():
    fig = cost_plot(cost_table(work_chars=[np.nan, 1.0, 2.0]))
    (ax,) = fig.axes
    assert ax.get_xlabel() == "index size (KiB)"
    assert "(model input not recorded by these runs)" in fig._suptitle.get_text()


def test_null_settings_are_labelled_null_not_nan():
    assert [value(float("nan")), value(None), value(400.0), value(0.15), value("hybrid")] == [
        "null",
        "null",
        "400",
        "0.15",
        "hybrid",
    ]
