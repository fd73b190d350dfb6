"""Small datasets written to disk, and runs composed by real Hydra from configs/ (in process or as the CLI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rag_bench.entry.evaluate import compose_config
from rag_bench.pipeline.run import run

# "b.md" repeats a sentence, so a text result naming it is ambiguous
DOCUMENTS = {
    "a.md": "Alpha beta gamma.\n\nThe ingest certificate expired at noon.\n\nDelta \u201cquoted\u201d text here.",
    "b.md": "Aphids were counted on sticky traps. Aphids were counted on sticky traps. Mites were not.",
    "c.md": "Gateways buffered their readings for six hours before the certificate was renewed.",
}
QUESTIONS = [
    {
        "id": "q1",
        "question": "When did the certificate expire?",
        "evidence": [{"doc_id": "a.md", "start": 19, "end": 58}],
    },
    {"id": "q2", "question": "What was counted?", "evidence": [{"doc_id": "b.md", "start": 0, "end": 36}]},
    {"id": "q3", "question": "How long did gateways buffer?", "evidence": [{"doc_id": "c.md", "start": 0, "end": 48}]},
]


def write_dataset(folder: Path, documents: dict[str, str], questions: list[dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rows = [{"id": doc_id, "text": text} for doc_id, text in documents.items()]
    (folder / "documents.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    return folder


def write_filtered_dataset(folder: Path) -> dict[str, list[str]]:
    """DOCUMENTS with an ``acl`` each, q1 (may see only "all" documents) and q2 (no filter); returns the acls."""
    acl = {"a.md": ["all"], "b.md": ["hr"], "c.md": ["all", "hr"]}
    rows = [{"id": d, "text": text, "metadata": {"acl": acl[d]}} for d, text in DOCUMENTS.items()]
    write_jsonl(folder / "documents.jsonl", rows)
    write_jsonl(folder / "questions.jsonl", [{**QUESTIONS[0], "filter": {"acl": "all"}}, QUESTIONS[1]])
    return acl


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def tiny(tmp_path) -> Path:
    """The three-document dataset above, as a native folder."""
    return write_dataset(tmp_path / "tiny", DOCUMENTS, QUESTIONS)


@pytest.fixture
def run_with(tmp_path):
    """run_with(*overrides) -> RunResult of `rag-bench <overrides>`, composed by Hydra, run in this process."""

    def go(*overrides: str):
        config = compose_config([f"cache_dir={tmp_path / 'cache'}", "embedder=fake", *overrides])
        return run(config)

    return go


def rag_bench_cli(*args: object, cache: Path, timeout: float = 300, cwd: Path | None = None):
    """The real command in a subprocess (bounded in time)."""
    env = {**os.environ, "RAG_BENCH_CACHE": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "rag_bench", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=cwd,
    )
