"""Document judgements end to end: the real pipeline's document metrics equal pytrec_eval."""

import csv
import json
import os
import subprocess
import sys

import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")

DOCS = {
    "d1": "The ingest certificate expired and gateways could not report.",
    "d2": "Rotate the ingest certificate thirty days before expiry.",
    "d3": "Aphids were counted in the orchard trial.",
    "d4": "The orchard trial used sticky traps and camera sensors.",
    "d5": "Quarterly revenue rose while service credits were paid.",
}
QUESTIONS = [
    {"id": "q1", "question": "Why could gateways not report? ingest certificate", "judgements": {"d1": 2, "d2": 1}},
    {"id": "q2", "question": "orchard trial traps", "judgements": {"d4": 1, "d3": 0}},
    {"id": "q3", "question": "service credits revenue", "judgements": {"d5": 1}},
    {"id": "q4", "question": "nothing judged relevant", "judgements": {"d2": 0}},
]


def test_document_metrics_equal_pytrec_eval_on_the_run_file(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "documents.jsonl").write_text("".join(json.dumps({"id": k, "text": v}) + "\n" for k, v in DOCS.items()))
    (data / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    out = tmp_path / "run"
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "rag_bench",
            f"dataset.path={data}",
            "embedder=fake",
            "chunker.size=30",
            "ks=[1,2,3,5]",
            f"hydra.run.dir={out}",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["n_questions"] == 3 and metrics["n_unlabelled"] == 1
    run: dict[str, dict[str, float]] = {}
    for line in (out / "run_documents.trec").read_text().splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    qrels = {q["id"]: q["judgements"] for q in QUESTIONS[:3]}
    measures = {"ndcg_cut.1,2,3,5", "recall.1,2,3,5", "map_cut.1,2,3,5", "P.1,2,3,5"}
    oracle = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate({q: run.get(q, {}) for q in qrels})
    with (out / "per_question.csv").open() as handle:
        rows = {r["question_id"]: r for r in csv.DictReader(handle)}
    for qid in qrels:
        for k in (1, 2, 3, 5):
            for ours, theirs in (("ndcg", "ndcg_cut"), ("recall", "recall"), ("map", "map_cut"), ("precision", "P")):
                assert float(rows[qid][f"{ours}@{k}"]) == pytest.approx(oracle[qid][f"{theirs}_{k}"], abs=1e-12)
    assert rows["q4"]["labelled"] == "False" and rows["q4"]["recall@5"] == ""
    assert "coverage@5" not in metrics["metrics"]  # no spans: no character metrics
