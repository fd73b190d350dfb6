import json
from pathlib import Path

import pytest

from rag_bench.core.errors import DataError
from rag_bench.data.jsonl import read_jsonl
from rag_bench.importers.common import write_native
from rag_bench.importers.prechunked import read_prechunked

CHUNKS = [
    {"id": "c1", "doc_id": "d1", "text": "Alpha beta.", "title": "First"},
    {"id": "c2", "doc_id": "d2", "text": "Other doc."},
    {"id": "c3", "doc_id": "d1", "text": " gamma"},  # d1 continues after d2: order within d1 is kept
    {"id": 4, "doc_id": "d1", "text": "delta"},
]
QUESTIONS = [
    {"id": "q1", "question": "Gamma?", "chunk_ids": ["c3", "c3"], "answer": "gamma", "category": "x"},
    {"id": "q2", "question": "Both?", "chunk_ids": ["c1", 4]},
    {"id": "q3", "question": "Nothing?"},
]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _source(tmp_path: Path, chunks=CHUNKS, questions=QUESTIONS) -> tuple[Path, Path]:
    return _write(tmp_path / "chunks.jsonl", chunks), _write(tmp_path / "questions.jsonl", questions)


def test_documents_are_joined_chunks_and_labels_become_spans(tmp_path):
    dataset = write_native(read_prechunked(*_source(tmp_path)), tmp_path / "out")
    assert [(d.id, d.text, d.title) for d in dataset.documents] == [
        ("d1", "Alpha beta.\n\n gamma\n\ndelta", "First"),
        ("d2", "Other doc.", None),
    ]
    q1, q2, q3 = dataset.questions
    assert [(s.doc_id, s.start, s.end) for s in q1.spans] == [("d1", 13, 19)]  # named twice, kept once
    assert (q1.answer, q1.category) == ("gamma", "x")
    assert [(s.doc_id, s.start, s.end) for s in q2.spans] == [("d1", 0, 11), ("d1", 21, 26)]
    assert not q3.labelled
    manifest = [row for _, row in read_jsonl(tmp_path / "out" / "chunks.jsonl")]
    assert manifest == [
        {"id": "c1", "doc_id": "d1", "start": 0, "end": 11},
        {"id": "c2", "doc_id": "d2", "start": 0, "end": 10},
        {"id": "c3", "doc_id": "d1", "start": 13, "end": 19},
        {"id": "4", "doc_id": "d1", "start": 21, "end": 26},
    ]


def test_custom_separator(tmp_path):
    imported = read_prechunked(*_source(tmp_path), separator=" | ")
    assert imported.documents[0]["text"] == "Alpha beta. |  gamma | delta"
    assert imported.extra["chunks.jsonl"][3] == {"id": "4", "doc_id": "d1", "start": 23, "end": 28}


@pytest.mark.parametrize(
    ("chunks", "questions", "file", "line", "field", "problem"),
    [
        (
            CHUNKS,
            [{"id": "q1", "question": "?", "chunk_ids": ["c1", "c9"]}],
            "questions.jsonl",
            1,
            "chunk_ids[1]",
            "unknown chunk id 'c9'",
        ),
        (
            [*CHUNKS, {"id": "c1", "doc_id": "d3", "text": "x"}],
            QUESTIONS,
            "chunks.jsonl",
            5,
            "id",
            "duplicate chunk id 'c1' (first on line 1)",
        ),
        ([{"id": "c1", "doc_id": "d1", "text": ""}], QUESTIONS, "chunks.jsonl", 1, "text", "is empty"),
        ([{"id": "c1", "doc_id": "my doc", "text": "x"}], QUESTIONS, "chunks.jsonl", 1, "doc_id", "whitespace"),
        ([{"id": "c1", "text": "x"}], QUESTIONS, "chunks.jsonl", 1, "doc_id", "missing"),
        (CHUNKS, [*QUESTIONS, {"id": "q1", "question": "again"}], "questions.jsonl", 4, "id", "duplicate id"),
    ],
)
def test_bad_files_name_file_line_and_field(tmp_path, chunks, questions, file, line, field, problem):
    with pytest.raises(DataError, match=file) as caught:
        read_prechunked(*_source(tmp_path, chunks, questions))
    assert (caught.value.line, caught.value.field) == (line, field)
    assert problem in caught.value.problem
