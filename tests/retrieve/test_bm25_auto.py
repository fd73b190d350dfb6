"""retrieval.analyzer=auto on the bundled multilingual set: per-language outputs, candidate keys, errors."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from rag_bench.config.compose import compose
from rag_bench.config.schema import register, validate
from rag_bench.core.paths import project_folder
from rag_bench.index.bm25.analysis import AnalysisSettings, build_analyzer
from rag_bench.index.bm25.detect import detect
from rag_bench.index.topk import top_k_row
from rag_bench.pipeline.run import run
from rag_bench.run_folder.write import metrics_payload

GROUPS = {"de": 15, "en": 9, "fr": 11, "ja": 14, "zh": 8, "cross-language": 12}


def ml_run(tmp_path, *overrides):
    register()
    base = ["dataset=multilingual", "embedder=fake", "retrieval=bm25", f"cache_dir={tmp_path}", "bootstrap=10"]
    return run(validate(compose(project_folder("configs"), [*base, *overrides], "test")))


def test_auto_lists_are_rank_bm25s_with_each_texts_own_analyzer(tmp_path):
    result = ml_run(tmp_path, "retrieval.analyzer=auto")
    languages = {d.id: d.language for d in result.dataset.documents}
    analyzers = {code: build_analyzer(AnalysisSettings("auto"), code) for code in set(languages.values())}
    oracle = BM25Okapi([analyzers[languages[c.doc_id]](c.indexed_text) for c in result.chunks])
    depth = result.ranked.shape[1]
    for row, question in enumerate(result.dataset.questions):
        ref = oracle.get_scores(analyzers[question.language](question.text))
        want, want_scores = top_k_row(ref, depth, valid=ref != 0)
        got = result.ranked[row][result.ranked[row] >= 0]
        assert got.tolist() == want.tolist(), question.id
        assert np.array_equal(result.scores[row][: len(got)], want_scores)


def test_metrics_and_report_break_down_by_language(tmp_path):
    result = ml_run(tmp_path, "retrieval.analyzer=auto")
    payload = metrics_payload(result)
    assert {g: v["n"] for g, v in payload["by_language"].items()} == GROUPS
    assert list(payload["by_language"])[-1] == "cross-language"
    table = result.evaluation.per_question
    ja = table[table["language"] == "ja"]
    assert payload["by_language"]["ja"]["metrics"]["recall@5"] == pytest.approx(ja["recall@5"].mean())


def test_settings_and_languages_key_the_candidate_lists(tmp_path):
    first = ml_run(tmp_path, "retrieval.analyzer=auto")
    assert not first.stats.reused["bm25"]
    assert ml_run(tmp_path, "retrieval.analyzer=auto").stats.reused["bm25"]  # same settings: read back
    assert not ml_run(tmp_path, "retrieval.analyzer=auto", "retrieval.fold_accents=true").stats.reused["bm25"]
    assert not ml_run(tmp_path, "retrieval.analyzer=german").stats.reused["bm25"]


def test_an_unknown_analyzer_is_one_line_and_exit_2(tmp_path):
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "rag_bench", "dataset=multilingual", "retrieval.analyzer=klingon"]
    done = subprocess.run([*command, f"hydra.run.dir={tmp_path / 'run'}"], capture_output=True, text=True, env=env)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rag-bench: error: retrieval.analyzer ('klingon') must be one of:")
    assert "Traceback" not in done.stderr


def test_the_multilingual_sweep_reports_each_language(tmp_path):
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache")}
    sweep = tmp_path / "sweep"
    command = [sys.executable, "-m", "rag_bench", "-m", "dataset=multilingual", "embedder=fake", "bootstrap=10"]
    overrides = ["retrieval.analyzer=auto,identifier", "retrieval=bm25,hybrid", f"hydra.sweep.dir={sweep}"]
    done = subprocess.run([*command, *overrides], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    report = (sweep / "report.md").read_text(encoding="utf-8")
    assert "## Per language (ndcg@10)" in report
    header = next(line for line in report.splitlines() if line.startswith("| point | setting | de (n=15)"))
    assert header.endswith("| cross-language (n=12) |")
    for point in range(4):
        groups = json.loads((sweep / str(point) / "metrics.json").read_text())["by_language"]
        cells = [f"{groups[g]['metrics']['ndcg@10']:.3f}" for g in GROUPS]
        row = next(line for line in report.splitlines() if line.startswith(f"| [#{point}]({point}/report.html) | retr"))
        assert row.endswith(" | " + " | ".join(cells) + " |")
    page = (sweep / "0" / "report.html").read_text(encoding="utf-8")
    assert 'id="languages"' in page and "cross-language" in page


def test_auto_without_languages_guesses_each_document_and_question(tmp_path):
    register()
    overrides = ["dataset=annual-report", "embedder=fake", "retrieval=bm25", "retrieval.analyzer=auto"]
    result = run(validate(compose(project_folder("configs"), [*overrides, f"cache_dir={tmp_path}"], "test")))
    assert detect(result.dataset.documents[0].text) == "en"  # one English document: every chunk English
    english = build_analyzer(AnalysisSettings("auto"), "en")
    oracle = BM25Okapi([english(c.indexed_text) for c in result.chunks])
    guessed = [detect(q.text) for q in result.dataset.questions]
    assert {"en", None} >= set(guessed) and "en" in guessed  # a question without stop words: identifier
    depth = result.ranked.shape[1]
    for row, (question, code) in enumerate(zip(result.dataset.questions, guessed, strict=True)):
        ref = oracle.get_scores(build_analyzer(AnalysisSettings("auto"), code)(question.text))
        want, _ = top_k_row(ref, depth, valid=ref != 0)
        assert result.ranked[row][result.ranked[row] >= 0].tolist() == want.tolist(), question.id
    assert "by_language" not in metrics_payload(result)  # detected languages are not the dataset's
