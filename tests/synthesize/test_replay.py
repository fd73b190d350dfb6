"""synthesize generator=replay: exactly the valid candidates are kept, every other one has its reason."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rag_bench.core.errors import ConfigError, DataError
from rag_bench.data.native import load_dataset
from rag_bench.label.cli import build_app
from rag_bench.synthesize.cli import main
from rag_bench.synthesize.run import synthesize
from rag_bench.synthesize.settings import VERB
from rag_bench.testing import FakeEmbedder

CANDIDATES = [
    {
        "doc_id": "guide.md",
        "question": "How long are audit logs retained?",
        "excerpt": "Audit logs are retained for seven years",
        "category": "paraphrase",
    },  # noqa: E501
    {
        "doc_id": "billing.md",
        "question": "What is the retention of invoices?",
        "excerpt": "Invoices are retained for ten years",
    },  # invented  # noqa: E501
    {
        "doc_id": "guide.md",
        "question": "how long are backups KEPT",
        "excerpt": "kept for 35 days",
    },  # duplicate of kb-001
    {"doc_id": "nope.md", "question": "Who signs the contracts?", "excerpt": "the director"},  # unknown document
    {
        "doc_id": "billing.md",
        "question": "When are invoices issued?",
        "excerpt": "Invoices  are\nissued monthly.",
        "answer": "Monthly.",
    },  # noqa: E501
    {"doc_id": "guide.md", "question": "How long are the audit logs retained?", "excerpt": "seven years to satisfy"},
    {"doc_id": "guide.md", "question": "What are they?", "excerpt": "are"},  # several places
    {"doc_id": "guide.md", "question": "   ", "excerpt": "primary region"},
]


def run(dataset, tmp_path, candidates_file, *extra):
    overrides = [f"dataset.path={dataset}", "dataset.name=data", "embedder=fake", "generator=replay"]
    overrides += [f"generator.path={candidates_file(CANDIDATES)}", f"out={tmp_path / 'review.jsonl'}"]
    overrides += [f"cache_dir={tmp_path / 'cache'}", *extra]
    return synthesize(VERB.compose(overrides))


def test_keeps_exactly_the_valid_candidates(dataset, tmp_path, candidates_file, texts):
    done = run(dataset, tmp_path, candidates_file)
    reasons = [(v.candidate.origin, v.reason) for v in done.verdicts]
    assert reasons == [
        ("candidates.jsonl:1", None),
        ("candidates.jsonl:2", "excerpt not in document"),
        ("candidates.jsonl:3", "duplicate"),
        ("candidates.jsonl:4", "unknown document"),
        ("candidates.jsonl:5", None),  # whitespace-mangled: kept where it really is
        ("candidates.jsonl:6", "near-duplicate"),
        ("candidates.jsonl:7", "ambiguous excerpt"),
        ("candidates.jsonl:8", "empty question"),
    ]
    rows = [json.loads(line) for line in done.out.read_text(encoding="utf-8").splitlines()]
    assert [r["question"] for r in rows] == ["How long are audit logs retained?", "When are invoices issued?"]
    # "# Retention guide" CRLF (19) + the backups line (55) + CRLF (2) + "## Logs" CRLF (9) = 85
    assert rows[0]["evidence"] == [
        {"doc_id": "guide.md", "start": 85, "end": 124, "text": "Audit logs are retained for seven years"}
    ]  # noqa: E501
    assert rows[1]["evidence"] == [
        {"doc_id": "billing.md", "start": 10, "end": 38, "text": "Invoices are issued monthly."}
    ]
    assert texts["guide.md"][85:124] == "Audit logs are retained for seven years"
    assert all(r["source"] == "synthetic" and r["id"].startswith("syn-") for r in rows)
    assert rows[0]["generator"]["name"] == "replay" and rows[0]["generator"]["origin"] == "candidates.jsonl:1"
    assert len(rows[0]["generator"]["sha256"]) == 64
    assert (rows[0]["category"], rows[1]["answer"]) == ("paraphrase", "Monthly.")
    # line 1: {long, audit, logs, retained}, 3 in the evidence (0.75 < 0.8); BM25's first chunk (all the guide) hits it
    assert rows[0]["flags"] == ["BM25 alone ranks its evidence first"]
    assert rows[1]["flags"] == [
        "excerpt relocated to [10, 38) (whitespace or quotes differed)",
        "copies 100% of its terms from the evidence",  # {invoices, issued}
        "BM25 alone ranks its evidence first",
    ]
    ds = load_dataset(dataset, questions=done.out)  # ready for review: the loader accepts the file
    assert [q.source for q in ds.questions] == ["synthetic", "synthetic"]
    app = build_app(dataset, questions=done.out)  # and the labelling app opens it
    assert [e.row["flags"] for e in app.store.read().entries.values()] == [r["flags"] for r in rows]


def test_rejects_report_and_summary(dataset, tmp_path, candidates_file):
    done = run(dataset, tmp_path, candidates_file)
    rejects = [json.loads(line) for line in done.rejects.read_text(encoding="utf-8").splitlines()]
    assert done.rejects.name == "review.rejects.jsonl"
    assert [r["reason"] for r in rejects] == [
        "excerpt not in document",
        "duplicate",
        "unknown document",
        "near-duplicate",
        "ambiguous excerpt",
        "empty question",
    ]
    assert rejects[1]["detail"] == "same text as kb-001"
    fake = FakeEmbedder(64)  # the near-duplicate's cosine, worked out independently
    a, b = fake.embed(["How long are audit logs retained?", "How long are the audit logs retained?"], "query")
    cosine = float(np.dot(a, b))
    assert cosine >= 0.9 > float(np.dot(a, fake.embed(["When are invoices issued?"], "query")[0]))
    assert rejects[3]["detail"] == f"cosine {cosine:.3f} to {json.loads(done.out.read_text().splitlines()[0])['id']}"
    summary = json.loads(done.summary_path.read_text())
    assert (summary["candidates"], summary["kept"]) == (8, 2)
    assert summary["rejected"]["duplicate"] == 1 and sum(summary["rejected"].values()) == 6
    assert summary["flagged"] == {
        "BM25 alone ranks its evidence first": 2,
        "copies most terms from its evidence": 1,
        "excerpt relocated": 1,
    }
    assert summary["by_document"] == {"guide.md": 1, "billing.md": 1}
    assert summary["usage"] == {} and summary["estimated_cost_usd"] is None


def test_reject_easy_and_caps(dataset, tmp_path, candidates_file):
    done = run(dataset, tmp_path, candidates_file, "checks.reject_easy=true")
    assert [v.reason for v in done.verdicts][4] == "too easy"  # copies 100% and BM25 ranks it first
    done = run(dataset, tmp_path, candidates_file, "checks.max_per_category=1", "checks.near_duplicate=1.0")
    # no near-duplicate check at cosine 1.0: line 6 is the second question without a category, after line 5
    assert [v.reason for v in done.verdicts][4:6] == [None, "over the category cap"]


def test_cli_prints_the_outcome(dataset, tmp_path, candidates_file, capsys):
    overrides = [
        f"dataset.path={dataset}",
        "embedder=fake",
        "generator=replay",
        f"generator.path={candidates_file(CANDIDATES)}",
    ]
    assert main([*overrides, f"out={tmp_path / 'r.jsonl'}", f"cache_dir={tmp_path / 'c'}"]) == 0
    out = capsys.readouterr().out
    assert f"kept 2 of 8 candidates -> {tmp_path / 'r.jsonl'}" in out
    assert "1 excerpt not in document" in out and f"rag-bench label {dataset} --questions" in out


def test_bad_settings_and_bad_replay_lines_are_one_clear_error(dataset, tmp_path, candidates_file):
    with pytest.raises(ConfigError, match=r"generator=replay needs generator.path"):  # before any chunk is embedded
        synthesize(VERB.compose(["generator=replay", f"dataset.path={dataset}", f"cache_dir={tmp_path / 'c'}"]))
    assert not (tmp_path / "c" / "vectors").exists()
    with pytest.raises(ConfigError, match=r"Could not find 'generator/nope'.*anthropic, openai, replay"):
        VERB.compose(["generator=nope"])
    with pytest.raises(
        ConfigError, match=r"generator.model is not a setting of generator=replay; its settings are: path"
    ):
        VERB.compose(["generator.path=x", "generator.model=m"])
    with pytest.raises(ConfigError, match=r"checks.near_duplicate \(1.5\) must lie between 0 and 1"):
        VERB.compose(["generator.path=x", "checks.near_duplicate=1.5"])
    path = tmp_path / "bad.jsonl"
    path.write_text('{"doc_id": "guide.md", "question": 5, "excerpt": "x"}\n')
    overrides = [f"dataset.path={dataset}", "embedder=fake", f"generator.path={path}", f"out={tmp_path / 'o.jsonl'}"]
    with pytest.raises(DataError, match=r"bad.jsonl:1: question: must be str, got int"):
        synthesize(VERB.compose([*overrides, f"cache_dir={tmp_path / 'c'}"]))
    assert not (tmp_path / "o.jsonl").exists()
