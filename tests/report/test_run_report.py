"""Real runs (fake embedder, annual-report) write report.html and the explained per-question tables."""

import json
import subprocess
import sys

import pandas as pd
import pytest

from rag_bench.report.run.page import read_run_view
from rag_bench.score.failures import CLASSES, MISSES


def rag_bench(*args, cache):
    env = {"RAG_BENCH_CACHE": str(cache), "PATH": "/usr/bin:/bin"}
    command = [sys.executable, "-m", "rag_bench", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """bm25 and hybrid runs, and hybrid with the maxsim reranker, of the annual-report dataset."""
    root = tmp_path_factory.mktemp("runs")
    done = {}
    for name, extra in {
        "bm25": ["retrieval=bm25"],
        "hybrid": ["retrieval=hybrid"],
        "rerank": ["retrieval=hybrid", "reranker=maxsim", "reranker.model=fake"],
    }.items():
        result = rag_bench(
            "embedder=fake", "dataset=annual-report", *extra, f"hydra.run.dir={root / name}", cache=root / "cache"
        )
        assert result.returncode == 0, result.stderr
        done[name] = (root / name, result.stdout)
    return done


def test_every_run_writes_its_report_and_explained_tables(runs):
    folder, stdout = runs["hybrid"]
    metrics = json.loads((folder / "metrics.json").read_text())
    counts = metrics["failures"]["counts"]
    table = pd.read_parquet(folder / "per_question.parquet")
    csv = pd.read_csv(folder / "per_question.csv")
    assert list(table["question_id"]) == list(csv["question_id"].astype(str)) and len(table) == 40
    assert {
        "question",
        "category",
        "failure",
        "evidence_rank_bm25",
        "evidence_rank_dense",
        "evidence_rank_fused",
        "ranked_chunks",
    } <= set(table.columns)
    # the classes agree with hit@10, and the counts in metrics.json with the table
    assert ((table["failure"] == "hit") == (table["hit@10"] == 1.0)).all()
    assert table["failure"].value_counts().to_dict() == {c: n for c, n in counts.items() if n}
    assert set(table["failure"]) <= set(CLASSES)
    # the first hit rank in the final list is the fused list's evidence rank (no reranker)
    ranks = table["evidence_rank_fused"].astype("float")
    assert (ranks.fillna(-1) == table["first_hit_rank"].fillna(-1)).all()
    assert json.loads(csv["ranked_chunks"][0]) == list(table["ranked_chunks"][0])
    line = next(line for line in stdout.splitlines() if line.startswith("failures at k=10: "))
    assert f"{counts['hit']} hit" in line and all(f"{counts[c]} {c}" in line for c in MISSES if counts[c])
    view = read_run_view(folder)
    assert [q["id"] for q in view["questions"]] == list(table["question_id"])
    assert view["run"]["stages"] == ["bm25", "dense", "fused"]


def test_configuration_work_is_recorded(runs):
    bm25 = json.loads((runs["bm25"][0] / "metrics.json").read_text())["stats"]["work"]
    hybrid = json.loads((runs["hybrid"][0] / "metrics.json").read_text())["stats"]["work"]
    rerank = json.loads((runs["rerank"][0] / "metrics.json").read_text())
    assert bm25["embedded_texts"] == 0 and bm25["reranked_pairs"] == 0
    chunks = json.loads((runs["hybrid"][0] / "metrics.json").read_text())["stats"]["chunks"]
    assert hybrid["embedded_texts"] == chunks + 40  # every chunk and every question, once
    assert rerank["stats"]["work"]["reranked_pairs"] == 40 * 20  # reranker.depth candidates per question
    assert rerank["stats"]["work"]["cost_usd"] is None  # nothing calls a priced API


def test_a_reranked_run_has_the_reranked_stage(runs):
    table = pd.read_parquet(runs["rerank"][0] / "per_question.parquet")
    ranks = table["evidence_rank_reranked"].astype("float")
    assert (ranks.fillna(-1) == table["first_hit_rank"].fillna(-1)).all()
    out = table[table["failure"] == "reranked-out"]
    assert (out["evidence_rank_fused"].astype(float) <= 10).all() and (
        out["evidence_rank_reranked"].isna() | (out["evidence_rank_reranked"].astype(float) > 10)
    ).all()


def test_diff_of_bm25_and_hybrid_lists_every_flip(runs, tmp_path):
    bm25, hybrid = runs["bm25"][0], runs["hybrid"][0]
    out = tmp_path / "diff.html"
    done = rag_bench("diff", str(bm25), str(hybrid), "--out", str(out), cache=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    before = pd.read_parquet(bm25 / "per_question.parquet").set_index("question_id")["hit@10"]
    after = pd.read_parquet(hybrid / "per_question.parquet").set_index("question_id")["hit@10"]
    flipped = sorted(before.index[before != after])
    shown = sorted(
        line.split(": ")[1] for line in done.stdout.splitlines() if line.startswith(("### lost", "### gained"))
    )
    assert shown == flipped and len(flipped) > 0
    assert out.read_text().count('<section class="flip ') == len(flipped)


def test_report_k_setting(tmp_path):
    done = rag_bench(
        "embedder=fake",
        "dataset=annual-report",
        "retrieval=bm25",
        "report_k=0",
        f"hydra.run.dir={tmp_path / 'x'}",
        cache=tmp_path / "cache",
    )
    assert done.returncode == 2 and "report_k (0) must be at least 1" in done.stderr


def test_the_real_report_shows_every_miss_with_its_evidence_and_class(runs, page, screenshot):
    folder = runs["hybrid"][0]
    table = pd.read_parquet(folder / "per_question.parquet")
    misses = table[table["failure"].isin(MISSES)]
    page.goto((folder / "report.html").as_uri())
    page.wait_for_function("window.runPageReady !== undefined")
    page.select_option("#filter-class", "misses")
    page.wait_for_function(f"document.querySelectorAll('#questions article').length === {len(misses)}")
    view = read_run_view(folder)
    evidence = {q["id"]: q["evidence"] for q in view["questions"]}
    for _, row in misses.iterrows():
        card = page.locator(f'article[data-id="{row["question_id"]}"]')
        assert card.locator(".badge").inner_text() == row["failure"]
        assert card.locator(".qtext").inner_text() == row["question"]
        shown = card.locator(".evidence").all_inner_texts()
        assert len(shown) == len(evidence[row["question_id"]]) > 0
        for box, span in zip(shown, evidence[row["question_id"]], strict=True):
            assert " ".join(span["text"].split()) in " ".join(box.split())
    screenshot(page, "annual-report-misses")


def test_the_gate_writes_the_diff_and_links_it(runs, tmp_path):
    bm25, hybrid = runs["bm25"][0], runs["hybrid"][0]
    out = tmp_path / "diff.html"
    done = rag_bench(
        "gate", "--baseline", str(bm25), "--current", str(hybrid), "--diff", str(out), cache=tmp_path / "cache"
    )
    assert done.returncode in (0, 1), done.stderr
    assert f"Each flipped question with both rankings, its evidence and failure class: [{out}]({out})" in done.stdout
    assert out.read_text().count('<section class="flip ') > 0
    plain = rag_bench("gate", "--baseline", str(bm25), "--current", str(hybrid), cache=tmp_path / "cache")
    assert f"Both rankings of each flip: `rag-bench diff {bm25} {hybrid}`" in plain.stdout
