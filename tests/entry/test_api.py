"""rag_bench.run and rag_bench.sweep: the CLI's runs and sweeps from Python, with the same results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import rag_bench
from rag_bench.core.errors import ConfigError
from rag_bench.entry import evaluate

DOCUMENTS = {
    "a.md": "Alpha beta gamma.\n\nThe ingest certificate expired at noon.",
    "b.md": "Aphids were counted on sticky traps. Mites were not.",
    "c.md": "Gateways buffered their readings for six hours.",
}
QUESTIONS = [
    {
        "id": "q1",
        "question": "When did the certificate expire?",
        "evidence": [{"doc_id": "a.md", "start": 19, "end": 58}],
    },
    {"id": "q2", "question": "What was counted?", "evidence": [{"doc_id": "b.md", "start": 0, "end": 36}]},
    {"id": "q3", "question": "How long did gateways buffer?", "evidence": [{"doc_id": "c.md", "start": 0, "end": 47}]},
]
ANSWERS = {  # q1 hits at rank 1, q2 at rank 2, q3 misses
    "When did the certificate expire?": [{"doc_id": "a.md", "start": 19, "end": 58, "score": 2.5}],
    "What was counted?": [
        {"doc_id": "c.md", "start": 0, "end": 20, "score": 0.75},
        {"doc_id": "b.md", "start": 0, "end": 36, "score": 0.5},
    ],
    "How long did gateways buffer?": [{"doc_id": "a.md", "start": 0, "end": 17, "score": 1.0}],
}


def search(questions, depth):
    return [ANSWERS[q][:depth] for q in questions]


@pytest.fixture
def tiny(tmp_path) -> Path:
    folder = tmp_path / "tiny"
    folder.mkdir()
    rows = [{"id": d, "text": text} for d, text in DOCUMENTS.items()]
    (folder / "documents.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    return folder


def rag_bench_cli(*args: str, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "RAG_BENCH_CACHE": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "rag_bench", *args], capture_output=True, text=True, env=env, timeout=300
    )


def test_a_callers_retriever_gives_metrics_per_question_and_rankings_by_hand(tiny, tmp_path):
    result = rag_bench.run("ks=[1,2]", "retrieval.depth=2", dataset=tiny, retriever=search, cache_dir=tmp_path / "c")
    # hit@1: q1 only; hit@2: q1 and q2; mrr@2: (1 + 1/2 + 0) / 3
    assert result.metrics.loc["hit@1", "mean"] == pytest.approx(1 / 3)
    assert result.metrics.loc["hit@2", "mean"] == pytest.approx(2 / 3)
    assert result.metrics.loc["mrr@2", "mean"] == pytest.approx(0.5)
    assert list(result.metrics.columns) == ["mean", "ci_low", "ci_high", "stderr"]
    low, high = result["ci95"]["hit@2"]  # the table holds metrics.json's intervals
    assert (result.metrics.loc["hit@2", "ci_low"], result.metrics.loc["hit@2", "ci_high"]) == (low, high)
    assert low <= 2 / 3 <= high
    table = result.per_question.set_index("question_id")
    assert (
        table.loc["q1", "first_hit_rank"] == 1
        and table.loc["q2", "first_hit_rank"] == 2
        and pd.isna(table.loc["q3", "first_hit_rank"])
    )
    assert list(table.loc["q2", "ranked_chunks"]) == ["c.md:0-20", "b.md:0-36"]
    final = result.rankings[result.rankings["stage"] == "final"]
    rows = final[["question_id", "rank", "chunk_id", "doc_id", "start", "end", "score"]].values.tolist()
    assert rows == [
        ["q1", 1, "a.md:19-58", "a.md", 19, 58, 2.5],
        ["q2", 1, "c.md:0-20", "c.md", 0, 20, 0.75],
        ["q2", 2, "b.md:0-36", "b.md", 0, 36, 0.5],
        ["q3", 1, "a.md:0-17", "a.md", 0, 17, 1.0],
    ]
    assert result.settings["retrieval.mode"] == "python" and result.settings["retrieval.depth"] == 2
    assert result.report == result.folder / "report.html" and result.report.is_file()


def test_the_same_fields_and_keys_with_an_output_folder_and_without(tiny, tmp_path):
    cache = tmp_path / "c"
    kept = rag_bench.run("retrieval=bm25", "ks=[1,3]", dataset=tiny, cache_dir=cache, out=tmp_path / "out")
    temporary = rag_bench.run("retrieval=bm25", "ks=[1,3]", dataset=tiny, cache_dir=cache)
    assert kept.folder == tmp_path / "out" and kept.report.is_file()
    assert temporary.folder.name.startswith("rag-bench-run-") and temporary.report.is_file()
    assert temporary.folder.parent == Path(evaluate.TEMPORARY_RUNS)  # tests/conftest.py: pytest's, not /tmp
    assert set(kept) == set(temporary) and {"failures", "shortfall", "metrics", "ci95"} <= set(kept)
    pd.testing.assert_frame_equal(kept.metrics, temporary.metrics)
    pd.testing.assert_frame_equal(kept.per_question, temporary.per_question)
    pd.testing.assert_frame_equal(kept.rankings, temporary.rankings)
    assert set(kept.rankings["stage"]) == {"bm25", "final"}
    assert kept.overrides == temporary.overrides and "retrieval=bm25" in kept.overrides
    # evaluate returns the same type, with the same keys
    scored = rag_bench.evaluate(tiny, search, ks=[1, 2], cache_dir=cache)
    assert isinstance(scored, rag_bench.Result) and set(scored) == set(kept)
    assert scored["metrics"]["hit@2"] == pytest.approx(2 / 3)


def test_an_overrides_file_runs_back_into_the_same_settings(tiny, tmp_path):
    cache = tmp_path / "c"
    first = rag_bench.run("retrieval=bm25", "chunker=fixed", "chunker.size=40", dataset=tiny, cache_dir=cache)
    path = tmp_path / "winner.overrides"
    path.write_text("# a comment\n" + "\n".join(first.overrides) + "\n")
    for again in (rag_bench.run(f"@{path}", cache_dir=cache), rag_bench.run(path, cache_dir=cache)):
        assert again.settings == first.settings
        pd.testing.assert_frame_equal(again.metrics, first.metrics)
    later = rag_bench.run(path, "chunker.size=30", cache_dir=cache)  # later overrides win, as on the CLI
    assert later.settings["chunker.size"] == 30


def test_bad_input_is_one_config_error(tiny, tmp_path):
    with pytest.raises(ConfigError, match=r"chunker.sise is not a setting of chunker=recursive"):
        rag_bench.run("chunker.sise=3", dataset=tiny, cache_dir=tmp_path / "c")
    with pytest.raises(ConfigError, match=r"@.*missing.overrides: cannot be read as an overrides file"):
        rag_bench.run(f"@{tmp_path / 'missing.overrides'}", dataset=tiny)
    with pytest.raises(ConfigError, match=r"override \(3\) must be a string"):
        rag_bench.run(3, dataset=tiny)
    with pytest.raises(ConfigError, match=r"grid \('chunker.size=1'\) must be"):
        rag_bench.sweep("chunker.size=1", dataset=tiny)
    with pytest.raises(ConfigError, match=r"not a preset of configs/sweep/: run the preset with rag-bench -m"):
        rag_bench.sweep({"chunker.size": [300]}, "sweep=chunking", dataset=tiny)
    with pytest.raises(ConfigError, match=r"the grid holds no point"):
        rag_bench.sweep({}, dataset=tiny)


TIMINGS = ("seconds", "latency")


def untimed(tree: object) -> object:
    """``tree`` without the keys that hold a duration (``seconds``, ``build_seconds``, ``latency_ms_p50`` ...)."""
    if isinstance(tree, dict):
        return {k: untimed(v) for k, v in tree.items() if not any(t in k for t in TIMINGS)}
    return tree


@pytest.mark.slow
def test_run_writes_the_clis_metrics_json(tmp_path):
    args = ["dataset=kestrel-kb", "embedder=fake", "retrieval=hybrid", "reranker=fake", "chunker.size=600"]
    done = rag_bench_cli(*args, f"hydra.run.dir={tmp_path / 'cli'}", cache=tmp_path / "cli-cache")
    assert done.returncode == 0, done.stderr
    result = rag_bench.run(*args, out=tmp_path / "api", cache_dir=tmp_path / "api-cache")
    cli = json.loads((tmp_path / "cli" / "metrics.json").read_text())
    api = json.loads((result.folder / "metrics.json").read_text())
    assert api.keys() == cli.keys()
    for key in api.keys() - {"stats", "config"}:
        assert api[key] == cli[key], key
    for payload in (api, cli):  # what differs: where each cached
        payload["config"].pop("cache_dir")
    assert api["config"] == cli["config"]
    assert untimed(api["stats"]) == untimed(cli["stats"])  # and how long each step took
    for name in ("per_question.csv", "run.trec"):
        assert (result.folder / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    assert set(result.rankings["stage"]) == {"bm25", "dense", "fused", "reranked", "final"}
    assert result.metrics.loc["recall@10", "mean"] == cli["metrics"]["recall@10"]


@pytest.mark.slow
def test_sweep_returns_the_clis_summary(tmp_path):
    fixed = ["dataset=kestrel-kb", "embedder=fake"]
    swept = ["chunker.size=300,600", "retrieval=bm25,hybrid"]
    done = rag_bench_cli("-m", *fixed, *swept, f"hydra.sweep.dir={tmp_path / 'cli'}", cache=tmp_path / "cli-cache")
    assert done.returncode == 0, done.stderr
    grid = {"chunker.size": [300, 600], "retrieval": ["bm25", "hybrid"]}
    table = rag_bench.sweep(grid, *fixed, out=tmp_path / "api", cache_dir=tmp_path / "api-cache")
    cli = pd.read_csv(tmp_path / "cli" / "summary.csv")
    assert list(table.columns) == list(cli.columns)
    assert table.attrs["folder"] == tmp_path / "api" and (tmp_path / "api" / "winner.overrides").is_file()
    timing = [c for c in cli.columns if any(t in c for t in TIMINGS)]  # what two runs of a point may differ in
    pd.testing.assert_frame_equal(table.drop(columns=timing), cli.drop(columns=timing))
    assert table[["chunker.size", "retrieval"]].values.tolist() == [
        [300, "bm25"],
        [300, "hybrid"],
        [600, "bm25"],
        [600, "hybrid"],
    ]
    # a list of override lists is a sweep too (its point served from the run cache the first sweep filled)
    again = rag_bench.sweep(
        [["chunker.size=300", "retrieval=bm25"]], *fixed, out=tmp_path / "api2", cache_dir=tmp_path / "api-cache"
    )
    assert again["recall@10"].tolist() == table["recall@10"].iloc[:1].tolist()
