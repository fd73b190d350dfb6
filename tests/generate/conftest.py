"""A tiny run folder on disk: a two-document dataset, config.yaml and per_question.csv."""

import csv
import json

import pytest

DOC_A = "The capital of France is Paris. It is a large city.\nThe river in Paris is the Seine."
DOC_B = "Bananas are yellow when ripe. Apples are red or green."
QUESTIONS = [
    {
        "id": "q1",
        "question": "What is the capital of France?",
        "answer": "Paris",
        "category": "fact",
        "evidence": [{"doc_id": "notes:a.md", "text": "The capital of France is Paris."}],
    },
    {
        "id": "q2",
        "question": "What colour are ripe bananas?",
        "answer": "yellow",
        "category": "fact",
        "evidence": [{"doc_id": "b.md", "text": "Bananas are yellow when ripe."}],
    },
    {"id": "q3", "question": "Who wrote Hamlet?", "category": "unanswerable"},
]
# question id -> chunk ids, best first (doc ids may hold ':'; chunk ids split at the last one)
TOP_CHUNKS = {
    "q1": ["notes:a.md:0-51", "b.md:0-29"],  # evidence [0, 31) of notes:a.md in passage 1
    "q2": ["notes:a.md:52-84", "notes:a.md:0-51"],  # evidence not retrieved
    "q3": ["b.md:30-54", "notes:a.md:0-51"],
}


def write_run(folder, dataset, top_chunks=TOP_CHUNKS, tau=0.5):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(f"dataset:\n  name: tiny\n  path: {dataset}\ntau: {tau}\n", encoding="utf-8")
    with (folder / "per_question.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question_id", "category", "labelled", "top_chunks"])
        for qid, ids in top_chunks.items():
            writer.writerow([qid, "", qid != "q3", json.dumps(ids)])
    return folder


@pytest.fixture
def tiny_dataset(tmp_path):
    folder = tmp_path / "tiny"
    folder.mkdir()
    docs = [{"id": "notes:a.md", "text": DOC_A}, {"id": "b.md", "text": DOC_B}]
    (folder / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    return folder


@pytest.fixture
def tiny_run(tmp_path, tiny_dataset):
    return write_run(tmp_path / "run", tiny_dataset)


@pytest.fixture
def run_writer():
    """``write_run(folder, dataset, top_chunks=..., tau=...)`` for tests that need their own run."""
    return write_run
