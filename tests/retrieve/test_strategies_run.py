"""Retrieval strategies in whole runs: the real command, real Hydra, real files; bad settings exit 2 in one line."""

import csv
import json

import pytest

from tests.retrieve.conftest import rag_bench_cli

DOCS = {
    "guide.md": "# Guide\n\n## Setup\nInstall the gateway agent. Then pair the gateway.\n\n"
    "## Rollback\nRoll back with the previous image. Reboot the unit after the rollback.\n",
    "notice.md": "All rights reserved by the company and its licensors worldwide.",
    "notice-copy.md": "All rights reserved by the company and its licensors worldwide.",
}
QUESTIONS = [
    {
        "id": "q1",
        "question": "How do I roll back?",
        "evidence": [{"doc_id": "guide.md", "text": "Roll back with the previous image."}],
    },
    {
        "id": "q2",
        "question": "How do I pair the gateway?",
        "evidence": [{"doc_id": "guide.md", "text": "Then pair the gateway."}],
    },
]


@pytest.fixture
def small(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    rows = [{"id": d, "text": t} for d, t in DOCS.items()]
    (folder / "documents.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    return folder


def test_parent_then_collapse_then_a_reranker_in_one_run(tmp_path, small):
    out = tmp_path / "run"
    done = rag_bench_cli(
        f"dataset.path={small}",
        "embedder=fake",
        "chunker.size=40",
        "ks=[1,3]",
        "report_k=1",
        "expand=parent",
        "expand.heading_depth=2",
        "diversity=collapse",
        "reranker=fake",
        f"hydra.run.dir={out}",
        cache=tmp_path / "c",
    )
    assert done.returncode == 0, done.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    strategies = metrics["stats"]["strategies"]
    assert strategies["expand"]["option"] == "parent" and strategies["diversity"]["option"] == "collapse"
    # the two notices are one section each and identical: collapse keeps the first of them in every list
    assert strategies["diversity"]["dropped_per_question"] == 1.0
    assert strategies["expand"]["chars@1 after"] > strategies["expand"]["chars@1 before"]  # a section, not 40 chars
    assert set(metrics["failures"]["counts"]) >= {"crowded-out", "diversified-out", "expanded-out"}
    with (out / "per_question.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {"evidence_rank_expanded", "evidence_rank_diversified", "evidence_rank_reranked"} <= set(rows[0])
    rollback = DOCS["guide.md"].index("## Rollback")
    section = f"guide.md:{rollback}-{len(DOCS['guide.md']) - 1}"  # the ## Rollback section, trimmed
    top = {row["question_id"]: json.loads(row["ranked_chunks"]) for row in rows}
    assert section in top["q1"] and len([c for c in top["q1"] if c.startswith("notice")]) == 1
    assert section in (out / "run.trec").read_text()
    assert "expanded" in (out / "report.html").read_text()


def test_score_fusion_runs_and_keeps_its_settings(tmp_path, small):
    out = tmp_path / "run"
    done = rag_bench_cli(
        f"dataset.path={small}",
        "embedder=fake",
        "chunker.size=40",
        "ks=[1,3]",
        "retrieval.fusion=convex",
        "retrieval.normalize=zscore",
        "retrieval.weights=[1,3]",
        f"hydra.run.dir={out}",
        cache=tmp_path / "c",
    )
    assert done.returncode == 0, done.stderr
    config = json.loads((out / "metrics.json").read_text())["config"]["retrieval"]
    assert (config["fusion"], config["normalize"], config["weights"]) == ("convex", "zscore", [1.0, 3.0])


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ("expand=window expand.size=-2", "expand.size (-2) must be 0 or more neighbouring chunks on each side"),
        ("expand=window expand.level=section", "expand.level is not a setting of expand=window"),
        ("expand=parent expand.level=chunk expand.size=400", "expand.size (400) must exceed chunker.size (800)"),
        ("chunker=given expand=merge expand.level=chunk", "chunker=given has no chunker.size, so it makes no parent"),
        ("expand=parent expand.level=paragraph", "expand.level ('paragraph') must be one of: section, document, chunk"),
        ("retrieval.weights=[1,nan]", "retrieval.weights[1] (nan) must be a finite number"),
        ("retrieval.weights=[0,0] retrieval.fusion=dbsf", "retrieval.weights ([0.0, 0.0]) are all 0"),
        ("retrieval.fusion=sum", "retrieval.fusion ('sum') must be one of: rrf, convex, dbsf"),
        ("retrieval.variant_fusion=max", "retrieval.variant_fusion ('max') must be one of: rrf, convex, dbsf"),
        ("diversity=mmr diversity.lambda_=1.5", "diversity.lambda_ (1.5) must lie in [0, 1]"),
        ("diversity=collapse diversity.threshold=0", "diversity.threshold (0.0) must lie in (0, 1]"),
    ],
)
def test_bad_strategy_settings_are_one_line_and_exit_2(tmp_path, overrides, expected):
    out = tmp_path / "run"
    done = rag_bench_cli("embedder=fake", *overrides.split(), f"hydra.run.dir={out}", cache=tmp_path / "c")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("rag-bench: error: ") and done.stderr.strip().count("\n") == 0
    assert expected in done.stderr and "Traceback" not in done.stderr
    assert not (out / "metrics.json").exists()
