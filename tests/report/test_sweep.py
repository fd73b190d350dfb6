import numpy as np
import pandas as pd
import pytest

from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError, DataError
from rag_bench.report.sweep.collect import KNOBS, collect, parse_overrides
from rag_bench.report.sweep.marks import mark_points, with_marks


def test_one_row_per_point_with_parameters_metrics_and_work(size_sweep):
    sweep = collect(size_sweep)
    table = sweep.table.set_index("point")
    assert list(table.index) == ["0", "1", "2"]
    assert list(sweep.table.columns[:3]) == ["point", "chunker.size", "retrieval"]  # swept keys first
    assert set(KNOBS) <= set(table.columns)
    assert sweep.swept == {"chunker.size": [200, 400, 800]} and sweep.fixed == {"retrieval": "bm25"}
    assert sweep.metrics == ("ndcg@10", "recall@5", "recall@10")
    row = table.loc["2"]
    assert (row["chunker.size"], row["retrieval"], row["chunker.name"], row["retrieval.k_rrf"]) == (
        800,
        "bm25",
        "fixed",
        60,
    )
    assert row["ndcg@10"] == pytest.approx(5 / 6)
    assert (row["ndcg@10_low"], row["ndcg@10_high"]) == (pytest.approx(5 / 6 - 0.1), pytest.approx(5 / 6 + 0.1))
    assert (row["chunks"], row["mean_chunk_chars"], row["index_bytes"]) == (15, 720.0, 2048 * 800)
    assert (row["seconds"], row["embedded"], row["cache_hits"]) == (1.75, 5, 2)
    assert (row["cost_usd"], row["tokens"]) == (0.02, 1500)
    assert (table.loc["0", "cost_usd"], table.loc["0", "tokens"]) == (0.0, 0.0)  # absent: no cost
    assert np.isnan(table.loc["0", "embedder.model"]) and table.loc["0", "embedder.dimension"] == 64


def test_overrides_are_parsed_like_hydra():
    parsed = parse_overrides(
        ["chunker.size=400", "chunker.overlap=0.15", "+extra=[1,2]", "~gone", "hydra.x=1", "retrieval=bm25"]
    )
    assert parsed == {"chunker.size": 400, "chunker.overlap": 0.15, "extra": [1, 2], "retrieval": "bm25"}


def test_points_in_natural_order_nested_and_unfinished(tmp_path, make_point):
    for name in ("10", "2", "nested/1"):
        make_point(tmp_path / name, [f"x={name}"], {"ndcg@10": [1.0, 0.0]})
    (tmp_path / "5" / ".hydra").mkdir(parents=True)
    (tmp_path / "5" / ".hydra" / "overrides.yaml").write_text("- x=5\n")
    sweep = collect(tmp_path)
    assert list(sweep.table["point"]) == ["2", "10", "nested/1"]
    assert sweep.unfinished == ("5",)
    assert list(sweep.table["x"]) == ["2", "10", "nested/1"]  # mixed numbers and text: one text column


def test_a_mixed_column_survives_parquet(tmp_path, make_point):
    make_point(tmp_path / "0", ["tag=5"], {"ndcg@10": [1.0]})
    make_point(tmp_path / "1", ["tag=abc"], {"ndcg@10": [0.0]})
    table = collect(tmp_path).table
    table.to_parquet(tmp_path / "t.parquet")
    assert list(pd.read_parquet(tmp_path / "t.parquet")["tag"]) == ["5", "abc"]


def test_best_and_points_not_significantly_worse(size_sweep):
    marks = mark_points(collect(size_sweep), "ndcg@10")
    best, worst, close = marks.marks["1"], marks.marks["0"], marks.marks["2"]
    assert (best.best, best.tied) == (True, True)
    # best - size 200: six +1 -> p = 1/64, Holm x2 = 1/32 < 0.05; best - size 800: one +1 -> p = 1/2
    assert (worst.p_value, worst.p_holm, worst.tied) == (1 / 64, 1 / 32, False)
    assert (close.p_value, close.p_holm, close.tied) == (0.5, 0.5, True)
    table = with_marks(collect(size_sweep).table, marks)
    assert list(table["best"]) == [False, True, False] and list(table["tied"]) == [False, True, True]
    assert table["p_holm"].iloc[0] == 1 / 32 and np.isnan(table["p_holm"].iloc[1])


def test_chosen_on_dev_and_reported_on_test(size_sweep):
    choice = mark_points(collect(size_sweep), "ndcg@10").choice
    # the dataset is not bundled, so questions are split by a seeded hash of their ids, 3 and 3;
    # size 400 scores 1 on every question, so it is best on any dev half and scores 1 on test
    assert (choice.point, choice.n_dev, choice.n_test, choice.test_mean) == ("1", 3, 3, 1.0)


def test_points_on_different_questions_are_not_tested(tmp_path, make_point):
    make_point(tmp_path / "0", ["x=1"], {"ndcg@10": [1.0, 1.0]}, ids=["a", "b"])
    make_point(tmp_path / "1", ["x=2"], {"ndcg@10": [0.0, 1.0]}, ids=["a", "c"])
    marks = mark_points(collect(tmp_path), "ndcg@10")
    assert marks.marks is None and marks.choice is None
    assert "different questions" in marks.notes[0]
    table = with_marks(collect(tmp_path).table, marks)
    assert list(table["best"]) == [True, False] and list(table["tied"]) == [True, False]


def test_unknown_or_unmeasured_metric_and_missing_points(tmp_path, size_sweep):
    with pytest.raises(ConfigError, match="recall@20 was not measured"):
        mark_points(collect(size_sweep), "recall@20")
    with pytest.raises(ConfigError, match="unknown metric name"):
        mark_points(collect(size_sweep), "ndgc")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="no finished sweep point"):
        collect(tmp_path / "empty")
    with pytest.raises(DataError, match="is not a folder"):
        collect(tmp_path / "absent")


def test_group_choice_and_config_value_win_over_the_raw_override(tmp_path, make_point):
    # retrieval (a group, not overridden in point 1) comes from Hydra's choices; weights from config.yaml
    make_point(
        tmp_path / "0",
        ["retrieval.weights=[1,2]", "retrieval=dense"],
        {"ndcg@10": [1.0]},
        config={"retrieval.weights": [1.0, 2.0]},
        choices={"retrieval": "dense"},
    )
    make_point(tmp_path / "1", ["chunker.size=300"], {"ndcg@10": [1.0]}, choices={"retrieval": "hybrid"})
    table = collect(tmp_path).table
    assert list(table["retrieval"]) == ["dense", "hybrid"]
    assert list(table["retrieval.weights"]) == ["[1.0, 2.0]", "[1.0, 1.0]"]
    assert list(table["chunker.size"]) == [400, 400]  # config.yaml says what ran


def test_configuration_work_columns_come_from_stats_work(tmp_path, make_point):
    work = {"embedded_texts": 3, "embedded_chars": 1000, "reranked_pairs": 2, "reranked_chars": 500, "cost_usd": None}
    stats = {"chunks": 2, "embedded": 0, "cache_hits": 3, "index_bytes": 10, "seconds": {"a": 1.0}}
    make_point(tmp_path / "0", ["x=1"], {"ndcg@10": [1.0]}, stats={**stats, "work": work})
    make_point(tmp_path / "1", ["x=2"], {"ndcg@10": [1.0]}, stats=stats)  # written before runs recorded work
    table = collect(tmp_path).table
    assert table["work_chars"].iloc[0] == 1500 and np.isnan(table["work_cost_usd"].iloc[0])
    assert np.isnan(table["work_chars"].iloc[1])


def test_sweep_seconds_count_steps_inside_a_stage_once():
    from rag_bench.report.sweep.work import work_columns

    # "bm25 build" and "bm25 search" are parts of "bm25"; "chunk" has no steps: 1.0 + 0.25
    seconds = {"bm25": 1.0, "bm25 build": 0.4, "bm25 search": 0.5, "chunk": 0.25}
    assert work_columns({"seconds": seconds})["seconds"] == 1.25


def test_points_served_from_the_run_cache_are_counted_in_the_report(tmp_path, make_point):
    from rag_bench.report.sweep.cli import report_sweep

    base = {"chunks": 2, "embedded": 4, "cache_hits": 3, "index_bytes": 10, "seconds": {"a": 1.0}}
    served = {**base, "embedded": 0, "cache_hits": 0, "reused": {"run": True}, "seconds": {"run": 0.01}}
    make_point(tmp_path / "0", ["x=1"], {"ndcg@10": [1.0, 0.0]}, stats={**base, "reused": {"chunks": True}})
    make_point(tmp_path / "1", ["x=2"], {"ndcg@10": [1.0, 1.0]}, stats=served)
    assert list(collect(tmp_path).table["served"]) == [False, True]
    report_sweep(tmp_path, tmp_path / "out", cache=DiskCache(tmp_path / "cache"))
    text = (tmp_path / "out" / "report.md").read_text()
    assert "work: 4 texts embedded, 3 vectors from the cache, 1 of 2 points served whole from the run cache" in text
    assert "| served from the run cache |" in text
