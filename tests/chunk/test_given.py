import json
from pathlib import Path

import pytest

from rag_bench.chunk.given import GivenChunker
from rag_bench.core.errors import DataError
from rag_bench.core.types import Chunk, Document
from rag_bench.importers.common import write_native
from rag_bench.importers.prechunked import read_prechunked

ORIGINAL = [
    {"id": "c1", "doc_id": "d1", "text": "  Leading spaces stay.", "title": "Doc one"},
    {"id": "c2", "doc_id": "d1", "text": "Second chunk\n"},
    {"id": "c3", "doc_id": "d2", "text": "Only chunk."},
]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _imported(tmp_path: Path):
    chunks = _write(tmp_path / "chunks.jsonl", ORIGINAL)
    questions = _write(tmp_path / "questions.jsonl", [{"id": "q1", "question": "?", "chunk_ids": ["c2"]}])
    return write_native(read_prechunked(chunks, questions), tmp_path / "out")


def test_reproduces_the_original_chunks_exactly(tmp_path):
    dataset = _imported(tmp_path)
    chunker = GivenChunker(tmp_path / "out" / "chunks.jsonl")
    chunks = [c for d in dataset.documents for c in chunker.split(d)]
    assert [c.text for c in chunks] == [row["text"] for row in ORIGINAL]  # untrimmed
    assert chunks[1] == Chunk("d1", 24, 37, "Second chunk\n")
    assert [c.id for c in chunks] == ["d1:0-22", "d1:24-37", "d2:0-11"]
    span = dataset.questions[0].spans[0]
    assert (span.start, span.end) == (chunks[1].start, chunks[1].end)  # the label is exactly its chunk


def test_title_prefix(tmp_path):
    dataset = _imported(tmp_path)
    chunker = GivenChunker(tmp_path / "out" / "chunks.jsonl", prefix="title")
    assert [c.prefix for c in chunker.split(dataset.documents[0])] == ["Doc one", "Doc one"]
    assert chunker.split(dataset.documents[1])[0].indexed_text == "d2\nOnly chunk."


def test_document_without_chunks_or_shorter_than_manifest(tmp_path):
    _imported(tmp_path)
    chunker = GivenChunker(tmp_path / "out" / "chunks.jsonl")
    with pytest.raises(DataError, match="has no chunks for document 'd9'"):
        chunker.split(Document("d9", "text"))
    with pytest.raises(DataError, match=r"chunks.jsonl:2: end: end 37 lies past document 'd1' \(30 characters\)"):
        chunker.split(Document("d1", "x" * 30))


def test_bad_manifest_row_names_line(tmp_path):
    manifest = _write(
        tmp_path / "m.jsonl",
        [{"id": "c1", "doc_id": "d1", "start": 0, "end": 5}, {"id": "c2", "doc_id": "d1", "start": 7, "end": 7}],
    )
    with pytest.raises(DataError, match=r"m.jsonl:2: start: chunk \[7, 7\) is empty"):
        GivenChunker(manifest)
    _write(manifest, [{"id": "c1", "doc_id": "d1", "start": "0", "end": 5}])
    with pytest.raises(DataError, match=r"m.jsonl:1: start: must be int, got str"):
        GivenChunker(manifest)
