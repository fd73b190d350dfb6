"""Pre-chunked corpora whose labels name chunk ids, to native datasets plus a chunk manifest.

Input: a chunks JSONL (``{"id", "doc_id", "text"}`` per chunk, each document's chunks in
order; ``title`` optional) and a questions JSONL (``{"id", "question", "chunk_ids"}``,
optional ``answer``, ``category``, ``split``; no chunk ids = unanswerable). Each document
becomes its chunks joined with ``separator``; each named chunk becomes an evidence span
over the joined text. The chunk boundaries are saved as ``chunks.jsonl`` in the dataset
(``{"id", "doc_id", "start", "end"}``), which the ``given`` chunker reproduces exactly.
Example: chunks "ab" and "cd" of d1, separator "\\n\\n" -> d1 = "ab\\n\\ncd", cd = [4, 6).
"""

from __future__ import annotations

from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.data.jsonl import field, read_jsonl
from rag_bench.importers.common import Imported, check_id, document_row, question_row

MANIFEST = "chunks.jsonl"
SEPARATOR = "\n\n"


def read_prechunked(chunks: Path, questions: Path, separator: str = SEPARATOR) -> Imported:
    """Documents, span-labelled questions and the chunk manifest from a chunks and a questions JSONL."""
    parts, titles, located = _read_chunks(Path(chunks), separator)
    documents = [document_row(doc_id, separator.join(texts), titles.get(doc_id)) for doc_id, texts in parts.items()]
    manifest = [{"id": cid, "doc_id": doc, "start": start, "end": end} for cid, (doc, start, end) in located.items()]
    rows = _read_questions(Path(questions), located)
    return Imported(documents, rows, extra={MANIFEST: manifest})


def _read_chunks(path: Path, separator: str):
    """Per document its chunk texts in order, its title, and chunk id -> (doc_id, start, end)."""
    parts: dict[str, list[str]] = {}
    lengths: dict[str, int] = {}
    titles: dict[str, str] = {}
    located: dict[str, tuple[str, int, int]] = {}
    lines: dict[str, int] = {}
    for line, obj in read_jsonl(path):
        cid = check_id(path, field(path, line, obj, "id", (str, int)), "id", line)
        doc_id = check_id(path, field(path, line, obj, "doc_id", (str, int)), "doc_id", line)
        text = field(path, line, obj, "text", str)
        if not text:
            raise DataError(path, "is empty", line=line, field="text", fix="drop empty chunks")
        if cid in lines:
            raise DataError(
                path,
                f"duplicate chunk id {cid!r} (first on line {lines[cid]})",
                line=line,
                field="id",
                fix="give every chunk a unique id",
            )
        lines[cid] = line
        start = lengths[doc_id] + len(separator) if doc_id in parts else 0
        parts.setdefault(doc_id, []).append(text)
        lengths[doc_id] = start + len(text)
        located[cid] = (doc_id, start, start + len(text))
        title = field(path, line, obj, "title", str, required=False)
        if title and doc_id not in titles:
            titles[doc_id] = title
    if not located:
        raise DataError(path, "holds no chunks", fix="add one chunk per line")
    return parts, titles, located


def _read_questions(path: Path, located: dict[str, tuple[str, int, int]]) -> list[dict]:
    rows, seen = [], {}
    for line, obj in read_jsonl(path):
        qid = check_id(path, field(path, line, obj, "id", (str, int)), "id", line)
        if qid in seen:
            raise DataError(
                path,
                f"duplicate id {qid!r} (first on line {seen[qid]})",
                line=line,
                field="id",
                fix="give every question a unique id",
            )
        seen[qid] = line
        evidence = []
        for i, cid in enumerate(field(path, line, obj, "chunk_ids", list, required=False) or []):
            if str(cid) not in located:
                raise DataError(
                    path,
                    f"unknown chunk id {cid!r}",
                    line=line,
                    field=f"chunk_ids[{i}]",
                    fix="name chunk ids from the chunks file",
                )
            doc_id, start, end = located[str(cid)]
            span = {"doc_id": doc_id, "start": start, "end": end}
            if span not in evidence:
                evidence.append(span)
        rows.append(
            question_row(
                qid,
                field(path, line, obj, "question", str),
                evidence=evidence,
                answer=_text(path, line, obj, "answer"),
                category=_text(path, line, obj, "category"),
                split=_text(path, line, obj, "split"),
            )
        )
    if not rows:
        raise DataError(path, "holds no questions", fix="add one question per line")
    return rows


def _text(path: Path, line: int, obj: dict, name: str) -> str | None:
    value = field(path, line, obj, name, (str, int, float), required=False)
    return None if value is None else str(value)
