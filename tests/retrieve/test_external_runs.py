"""External runs in the rest of rag-bench: fused with BM25, reranked, gated, compared, reported, checked."""

import csv
import json

import pandas as pd
import pytest

from rag_bench.report.run.outputs import write_run
from rag_bench.testing import FakeReranker

from .conftest import rag_bench_cli, write_jsonl

# chunker=fixed chunker.size=30 cuts a.md into [0,30), [30,60), [60,85); the run names one of them and
# a chunk of its own (a.md:19-58, the evidence of q1)
RUN = [
    {
        "question_id": "q1",
        "results": [{"doc_id": "a.md", "start": 19, "end": 58}, {"doc_id": "c.md", "start": 0, "end": 30}],
    },
    {"question_id": "q2", "results": [{"doc_id": "b.md", "text": "Mites were not."}]},
]


def test_hybrid_fuses_a_run_file_with_bm25_by_rrf(tiny, tmp_path, run_with):
    path = write_jsonl(tmp_path / "run.jsonl", RUN)
    common = (f"dataset.path={tiny}", "chunker=fixed", "chunker.size=30", "ks=[1,3]", "retrieval.depth=3")
    bm25 = run_with(*common, "retrieval=bm25")
    fused = run_with(*common, "retrieval=hybrid", "retrieval.fuse=[external,bm25]", f"retrieval.run={path}")
    assert list(fused.stages) == ["external", "bm25", "fused"]
    for q in range(3):
        lists = {
            "external": [fused.chunks[c].id for c in fused.stages["external"].indices[q] if c >= 0],
            "bm25": [bm25.chunks[c].id for c in bm25.ranked[q] if c >= 0],
        }
        expected: dict[str, float] = {}  # RRF by hand: sum of 1 / (60 + rank) over the lists holding a chunk
        for ids in lists.values():
            for rank, chunk_id in enumerate(ids, start=1):
                expected[chunk_id] = expected.get(chunk_id, 0.0) + 1 / (60 + rank)
        got = {fused.chunks[c].id: s for c, s in zip(fused.ranked[q], fused.scores[q], strict=True) if c >= 0}
        assert got == pytest.approx(expected, abs=1e-15)
        assert list(got.values()) == sorted(got.values(), reverse=True)
    # q1: the run's own chunk a.md:19-58 is the evidence; c.md:0-30 is in both lists
    q1 = {fused.chunks[c].id for c in fused.ranked[0] if c >= 0}
    assert "a.md:19-58" in q1 and fused.stats.retriever == f"hybrid(external {path}, bm25)"
    assert fused.stats.retrieval["external"]["unmentioned_ids"] == ["q3"]


def test_an_external_run_is_reranked(tiny, tmp_path, run_with):
    q1 = {"question_id": "q1", "results": [RUN[0]["results"][1], RUN[0]["results"][0]]}  # c.md first, then a.md
    path = write_jsonl(tmp_path / "run.jsonl", [q1])
    result = run_with(f"dataset.path={tiny}", "retrieval=external", f"retrieval.run={path}", "reranker=fake")
    assert "reranked" in result.stages
    first = [result.chunks[c] for c in result.stages["external"].indices[0] if c >= 0]
    assert [c.id for c in first] == ["c.md:0-30", "a.md:19-58"]
    # FakeReranker: the share of the question's 6 tokens (5 words and "?") in the chunk; a.md:19-58 has 2
    scores = FakeReranker().score("When did the certificate expire?", [c.text for c in first])
    assert scores.tolist() == [0.0, 2 / 6]
    assert [result.chunks[c].id for c in result.ranked[0] if c >= 0] == ["a.md:19-58", "c.md:0-30"]
    table = result.evaluation.per_question.set_index("question_id")
    assert table.at["q1", "hit@1"] == 1.0  # the evidence, reranked to the top


def annual_runs(tmp_path, run_with):
    """Two external run folders on annual-report: a BM25 ranking, and the same with 20 questions emptied."""
    bm25 = run_with("dataset=annual-report", "retrieval=bm25")
    write_run(bm25, tmp_path / "bm25")
    lines = (tmp_path / "bm25" / "run.trec").read_text().splitlines()
    ids = [q.id for q in bm25.dataset.questions]
    dropped = set(ids[::2])
    worse = [line for line in lines if line.split()[0] not in dropped]
    (tmp_path / "worse.trec").write_text("\n".join(worse) + "\n")
    folders = {}
    for name, run in (("base", tmp_path / "bm25" / "run.trec"), ("worse", tmp_path / "worse.trec")):
        result = run_with("dataset=annual-report", "retrieval=external", f"retrieval.run={run}")
        write_run(result, tmp_path / name)
        folders[name] = tmp_path / name
    return folders, dropped


def test_gate_and_compare_work_on_external_runs(tmp_path, run_with):
    folders, dropped = annual_runs(tmp_path, run_with)
    cache = tmp_path / "cache"
    same = rag_bench_cli("gate", "--baseline", folders["base"], "--current", folders["base"], cache=cache)
    assert same.returncode == 0, same.stderr
    gate = rag_bench_cli("gate", "--baseline", folders["base"], "--current", folders["worse"], cache=cache)
    assert gate.returncode == 1, gate.stderr
    base = pd.read_csv(folders["base"] / "per_question.csv", dtype={"question_id": str}).set_index("question_id")
    flipped = [q for q in dropped if base.at[q, "hit@10"] == 1.0]
    assert len(flipped) >= 5 and all(q in gate.stdout for q in flipped)
    compare = rag_bench_cli("compare", folders["base"], folders["worse"], "--metric", "recall@10", cache=cache)
    assert compare.returncode == 0 and "recall@10" in compare.stdout


def test_check_generation_reads_an_external_run(tmp_path, run_with):
    folders, _ = annual_runs(tmp_path, run_with)
    done = rag_bench_cli("check-generation", folders["base"], "generator=extractive", cache=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    report = json.loads((folders["base"] / "generation" / "generation.json").read_text())
    assert report  # written from the external run's chunks
    with (folders["base"] / "generation" / "generation_per_question.csv").open() as handle:
        assert len(list(csv.DictReader(handle))) == 40


def test_a_sweep_over_run_files_names_each_runs_retriever(tiny, tmp_path):
    a = write_jsonl(tmp_path / "a.jsonl", RUN)
    b = write_jsonl(tmp_path / "b.jsonl", RUN[1:])  # q1 left out: its hit is lost
    sweep = tmp_path / "sweep"
    done = rag_bench_cli(
        "-m",
        f"dataset.path={tiny}",
        "embedder=fake",
        "retrieval=external",
        f"retrieval.run={a},{b}",
        "ks=[1,2,10]",  # the sweep report's headline metric is ndcg@10
        f"hydra.sweep.dir={sweep}",
        cache=tmp_path / "cache",
    )
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(sweep / "summary.csv").sort_values("retrieval.run")
    assert table["retriever"].tolist() == [f"external {a}", f"external {b}"]
    assert table["hit@1"].tolist() == pytest.approx([1 / 3, 0.0])  # q1 hits at rank 1 in a; q2 misses in both
    report = (sweep / "report.md").read_text()
    assert "| point | retriever | retrieval.run |" in report and f"external {b}" in report
