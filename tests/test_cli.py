"""End to end: the real ``rag-bench`` command, real Hydra, real files."""

import csv
import json
import os
import subprocess
import sys

import pytest

from rag_bench.core.cache import DiskCache


def rag_bench(*args, cache, cwd=None):
    env = {**os.environ, "RAG_BENCH_CACHE": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "rag_bench", "dataset=annual-report", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
    )


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_each_retrieval_mode_writes_every_output(tmp_path, mode):
    out = tmp_path / "run"
    done = rag_bench("embedder=fake", f"retrieval={mode}", f"hydra.run.dir={out}", cache=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    assert "recall@5" in done.stdout and str(out) in done.stdout
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["n_questions"] == 40 and metrics["n_unlabelled"] == 0
    for name in ("recall@5", "ndcg@10", "mrr@10", "hit@1", "coverage@5", "iou@20", "precision_omega"):
        assert 0 <= metrics["metrics"][name] <= 1
        low, high = metrics["ci95"][name]
        assert low <= metrics["metrics"][name] <= high
    stats = metrics["stats"]
    assert stats["chunks"] > 10 and set(stats["seconds"]) >= {"load", "chunk", "fuse", "score"}
    assert stats["embedded"] == (0 if mode == "bm25" else stats["chunks"] + 40 - stats["cache_hits"])
    with (out / "per_question.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 40 and {"question_id", "first_hit_rank", "recall@10", "top_chunks"} <= set(rows[0])
    assert json.loads(rows[0]["top_chunks"])[0].startswith("annual-report.md:")
    trec = (out / "run.trec").read_text().splitlines()
    qid, q0, chunk_id, rank, score, tag = trec[0].split()
    assert (q0, rank, tag) == ("Q0", "1", "rag-bench") and qid == rows[0]["question_id"]
    assert (out / "config.yaml").is_file() and (out / ".hydra" / "overrides.yaml").is_file()


def test_second_identical_run_is_served_whole_and_a_changed_one_reuses_every_stage(tmp_path):
    runs = {"a": [], "b": [], "c": ["tau=0.3"]}  # b: the same command as a; c: another result, same stages
    for name, extra in runs.items():
        done = rag_bench("embedder=fake", *extra, f"hydra.run.dir={tmp_path / name}", cache=tmp_path / "cache")
        assert done.returncode == 0, done.stderr
    a, b, c = (json.loads((tmp_path / name / "metrics.json").read_text()) for name in runs)
    assert a["stats"]["embedded"] > 0 and not any(a["stats"]["reused"].values())
    assert b["stats"]["reused"] == {"run": True} and b["stats"]["embedded"] == b["stats"]["cache_hits"] == 0
    assert b["metrics"] == a["metrics"] and b["stats"]["work"] == a["stats"]["work"]
    for name in ("config.yaml", "report.html", "per_question.csv", "per_question.parquet", "run.trec"):
        assert (tmp_path / "b" / name).read_bytes() == (tmp_path / "a" / name).read_bytes(), name
    assert c["stats"]["reused"] == {"chunks": True, "bm25": True, "dense": True} and c["stats"]["embedded"] == 0
    assert c["config"]["tau"] == 0.3 and c["metrics"] != a["metrics"]


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("chunker.overlap=900", "chunker.overlap (900) must be smaller than chunker.size (800)"),
        (
            "retrieval=foo",
            "Could not find 'retrieval/foo' Available options in 'retrieval': "
            "bm25, dense, external, http, hybrid, langchain, python",
        ),
        (
            "retrieval.mode=foo",
            "retrieval.mode ('foo') must be one of: bm25, dense, external, http, python, langchain, hybrid",
        ),
        ("chunker.sise=3", "chunker.sise is not a setting of chunker=recursive; its settings are: prefix, contexts,"),
        ("chunker=fixed chunker.piece_size=9", "chunker.piece_size is not a setting of chunker=fixed"),
        ("reranker=none reranker.keep=3", "reranker.keep is not a setting of reranker=none"),
        ("retrieval=bm25 retrieval.index=hnsw", "retrieval.index is not a setting of retrieval=bm25"),
        ("retrieval=bm25 ks=[20,60]", "ks holds 60 but retrieval.depth is 20"),
        ("reranker=fake reranker.keep=5", "ks holds 20 but reranker.keep is 5"),
        ("retrieval=bm25 reranker=fake reranker.depth=40", "reranker.depth (40) exceeds the 20 candidates"),
        ("retrieval.weights=[0,0]", "retrieval.weights ([0.0, 0.0]) are all 0"),
        ("bootstrap=0", "bootstrap (0) must lie between 1 and 100000"),
        ("bootstrap=-5", "bootstrap (-5) must lie between 1 and 100000"),
        ("objective=map@10", "objective (map@10) is measured on document questions"),
        ("ks=[0,5]", "ks ([0, 5]) must be a non-empty list of positive cut-offs"),
        ("dataset.name=nope", "dataset.name ('nope') is not a bundled dataset"),
        ("retriever=bm25", "Key 'retriever' not in 'Config' (fix: did you mean retrieval=...?"),
        ("chunk.size=300", "(fix: did you mean chunker.size=...?"),
        ("out=somewhere", "(fix: a run's folder is hydra.run.dir=PATH;"),
        ("zzz=1", "(fix: rag-bench --help lists the settings and groups of a run)"),
    ],
)
def test_config_errors_are_one_line_and_exit_2(tmp_path, override, expected):
    done = rag_bench("embedder=fake", *override.split(), f"hydra.run.dir={tmp_path / 'run'}", cache=tmp_path / "cache")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "Traceback" not in done.stderr
    assert done.stderr.startswith("rag-bench: error: ") and expected in done.stderr
    assert not (tmp_path / "run" / "metrics.json").exists()


def test_bad_dataset_fails_cleanly_and_leaves_the_cache_intact(tmp_path):
    cache = tmp_path / "cache"
    assert rag_bench("embedder=fake", f"hydra.run.dir={tmp_path / 'ok'}", cache=cache).returncode == 0
    before = {p: p.read_bytes() for p in cache.rglob("*") if p.is_file()}
    data = tmp_path / "data"
    data.mkdir()
    (data / "documents.jsonl").write_text('{"id": "d", "text": "some text"}\n')
    (data / "questions.jsonl").write_text(
        '{"id": "q", "question": "?", "evidence": [{"doc_id": "d", "text": "zzz"}]}\n'
    )
    done = rag_bench("embedder=fake", f"dataset.path={data}", f"hydra.run.dir={tmp_path / 'bad'}", cache=cache)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{data / 'questions.jsonl'}:1: evidence[0].text: excerpt 'zzz' not found in document 'd'" in done.stderr
    after = {p: p.read_bytes() for p in cache.rglob("*") if p.is_file()}
    assert {p: after.get(p) for p in before} == before  # nothing already computed changed or went missing
    assert {p.relative_to(cache).parts[0] for p in set(after) - set(before)} == {"composed"}  # only its config
    reader = DiskCache(cache)
    assert all(len(list(reader.entries(ns.relative_to(cache).as_posix()))) for ns in cache.glob("vectors/*/*/*"))
    assert reader.corrupt == 0


def test_hnsw_runs_report_their_recall_against_exact_search(tmp_path):
    pytest.importorskip("faiss")
    out = tmp_path / "run"
    args = ("embedder=fake", "retrieval=dense", "retrieval.index=hnsw", "retrieval.index.m=4", "retrieval.index.ef=8")
    done = rag_bench(*args, f"hydra.run.dir={out}", cache=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    assert (
        0 < metrics["metrics"]["ann_recall@20"] <= 1
        and metrics["stats"]["ann_recall"] == metrics["metrics"]["ann_recall@20"]
    )
    exact = rag_bench(
        "embedder=fake", "retrieval=dense", f"hydra.run.dir={tmp_path / 'exact'}", cache=tmp_path / "cache"
    )
    assert (
        exact.returncode == 0
        and "ann_recall@20" not in json.loads((tmp_path / "exact" / "metrics.json").read_text())["metrics"]
    )


@pytest.mark.slow
def test_embedded_counts_every_stage_including_the_reranker(tmp_path):
    args = ("retrieval=bm25", "reranker=maxsim", "reranker.depth=3", "ks=[1,3]")
    first = rag_bench(*args, f"hydra.run.dir={tmp_path / 'a'}", cache=tmp_path / "cache")
    second = rag_bench(*args, f"hydra.run.dir={tmp_path / 'b'}", cache=tmp_path / "cache")
    assert first.returncode == second.returncode == 0, first.stderr
    a = json.loads((tmp_path / "a" / "metrics.json").read_text())["stats"]
    b = json.loads((tmp_path / "b" / "metrics.json").read_text())["stats"]
    # BM25 embeds nothing; maxsim embeds the candidates' sentences and the questions, once
    assert a["embedded"] > 40 and b["embedded"] == 0


def test_a_path_dataset_is_labelled_by_its_folder_and_short_lists_are_reported(tmp_path):
    import shutil

    from rag_bench.core.paths import project_folder

    data = tmp_path / "my-set"
    shutil.copytree(project_folder("datasets") / "annual-report", data)
    out = tmp_path / "run"
    args = ["embedder=fake", f"dataset.path={data}", "budgets=[1000,100000]", f"hydra.run.dir={out}"]
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "c")}
    done = subprocess.run([sys.executable, "-m", "rag_bench", *args], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["dataset"] == "my-set" and done.stdout.startswith("my-set: ")
    # 20 + 20 fused chunks of ~800 characters cannot fill a 100,000-character budget: every question falls short
    assert metrics["shortfall"] == {"chars@100000": 40}
    assert "note: 40 questions have fewer than 100000 characters among their candidates" in done.stdout
