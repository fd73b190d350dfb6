"""Load and validate a dataset in rag-bench's native format.

A dataset folder holds documents, either ``documents.jsonl`` (``id``, ``text``, optional
``title``, ``metadata``) or a ``docs/`` folder of ``.md``/``.txt`` files (id = path
relative to ``docs/``), and ``questions.jsonl``:

    {"id": "q1", "question": "...", "evidence": [{"doc_id": "a.md", "start": 10, "end": 80}],
     "answer": "...", "category": "identifier"}

Evidence is a list of spans, each ``{doc_id, start, end}`` (character offsets, end
exclusive) or ``{doc_id, text}`` (an excerpt found exactly once in the document).
Questions may instead carry ``judgements`` (``{doc_id: grade}``, grade > 0 relevant).
A question with neither is unanswerable: kept, reported, and excluded from scoring.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import MappingProxyType

from rag_bench.data.jsonl import field, read_jsonl, reject_unknown
from rag_bench.data.metadata import question_filter, with_sidecar
from rag_bench.errors import DataError
from rag_bench.types import Dataset, Document, Question, Span

DOCUMENT_FIELDS = {"id", "text", "title", "metadata"}
QUESTION_FIELDS = {"id", "question", "evidence", "judgements", "answer", "category", "split", "filter"}
_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)


def load_dataset(folder: Path, name: str | None = None) -> Dataset:
    """Read, validate and return the dataset in ``folder``."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DataError(folder, "is not a folder", fix="set dataset.path to a dataset folder")
    documents = load_documents(folder)
    questions = load_questions(folder / "questions.jsonl", {d.id: d for d in documents})
    return Dataset(name=name or folder.name, documents=documents, questions=questions)


def load_documents(folder: Path) -> tuple[Document, ...]:
    """Documents from ``documents.jsonl`` or, failing that, the ``docs/`` folder."""
    jsonl, docs = folder / "documents.jsonl", folder / "docs"
    if jsonl.is_file():
        documents = tuple(_documents_from_jsonl(jsonl))
    elif docs.is_dir():
        documents = tuple(_documents_from_folder(docs))
    else:
        raise DataError(folder, "has neither documents.jsonl nor a docs/ folder", fix="add one of them")
    if not documents:
        raise DataError(jsonl if jsonl.is_file() else docs, "holds no documents", fix="add documents")
    return with_sidecar(folder / "metadata.jsonl", documents)


def _documents_from_jsonl(path: Path):
    seen: dict[str, int] = {}
    for line, obj in read_jsonl(path):
        reject_unknown(path, line, obj, DOCUMENT_FIELDS)
        doc_id = _check_id(path, line, field(path, line, obj, "id", (str, int)), seen)
        text = field(path, line, obj, "text", str)
        title = field(path, line, obj, "title", str, required=False)
        metadata = field(path, line, obj, "metadata", dict, required=False) or {}
        yield Document(id=doc_id, text=text, title=title, metadata=MappingProxyType(dict(metadata)))


def _documents_from_folder(docs: Path):
    for path in sorted(p for p in docs.rglob("*") if p.suffix in {".md", ".txt"} and p.is_file()):
        doc_id = path.relative_to(docs).as_posix()
        if any(c.isspace() for c in doc_id):
            raise DataError(path, "file name contains whitespace", fix="rename the file without spaces")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise DataError(path, f"is not UTF-8 (byte {exc.start})", fix="save it as UTF-8") from None
        heading = _HEADING.search(text) if path.suffix == ".md" else None
        yield Document(id=doc_id, text=text, title=heading.group(1) if heading else None)


def load_questions(path: Path, documents: dict[str, Document]) -> tuple[Question, ...]:
    """Questions from ``questions.jsonl``, every evidence span checked against ``documents``."""
    if not path.is_file():
        raise DataError(path, "not found", fix="add questions.jsonl next to the documents")
    seen: dict[str, int] = {}
    questions = []
    for line, obj in read_jsonl(path):
        reject_unknown(path, line, obj, QUESTION_FIELDS)
        qid = _check_id(path, line, field(path, line, obj, "id", (str, int)), seen)
        evidence = field(path, line, obj, "evidence", list, required=False) or []
        spans = tuple(_span(path, line, i, ev, documents) for i, ev in enumerate(evidence))
        judgements = _judgements(path, line, obj, documents)
        flt = question_filter(path, line, obj.get("filter"), documents, spans, judgements)
        questions.append(
            Question(
                id=qid,
                text=field(path, line, obj, "question", str),
                spans=spans,
                judgements=judgements,
                answer=_optional_text(path, line, obj, "answer"),
                category=_optional_text(path, line, obj, "category"),
                split=_optional_text(path, line, obj, "split"),
                filter=flt,
            )
        )
    if not questions:
        raise DataError(path, "holds no questions", fix="add at least one question")
    return tuple(questions)


def _span(path: Path, line: int, i: int, ev: object, documents: dict[str, Document]) -> Span:
    name = f"evidence[{i}]"
    if not isinstance(ev, dict):
        raise DataError(path, "must be an object {doc_id, start, end} or {doc_id, text}", line=line, field=name)
    doc_id = ev.get("doc_id")
    if doc_id is None:
        raise DataError(path, "missing", line=line, field=f"{name}.doc_id", fix="name the evidence document")
    doc = documents.get(str(doc_id))
    if doc is None:
        raise DataError(
            path,
            f"unknown document id {doc_id!r}",
            line=line,
            field=f"{name}.doc_id",
            fix=f"use one of the {len(documents)} document ids, e.g. {next(iter(documents))!r}",
        )
    if "text" in ev:
        return _locate(path, line, name, doc, ev["text"])
    start, end = ev.get("start"), ev.get("end")
    if not isinstance(start, int) or not isinstance(end, int) or isinstance(start, bool):
        raise DataError(
            path,
            "needs integer 'start' and 'end' or an excerpt 'text'",
            line=line,
            field=name,
            fix="give character offsets or the exact excerpt",
        )
    if not 0 <= start < end <= len(doc.text):
        raise DataError(
            path,
            f"span [{start}, {end}) lies outside document {doc.id!r} ({len(doc.text)} characters)",
            line=line,
            field=name,
            fix="offsets are 0-based code points with start < end <= document length",
        )
    return Span(doc.id, start, end)


def _locate(path: Path, line: int, name: str, doc: Document, excerpt: object) -> Span:
    if not isinstance(excerpt, str) or not excerpt.strip():
        raise DataError(path, "must be a non-empty string", line=line, field=f"{name}.text")
    first = doc.text.find(excerpt)
    if first < 0:
        raise DataError(
            path,
            f"excerpt {excerpt[:50]!r} not found in document {doc.id!r}",
            line=line,
            field=f"{name}.text",
            fix="copy the excerpt exactly from the document",
        )
    if doc.text.find(excerpt, first + 1) >= 0:
        raise DataError(
            path,
            f"excerpt {excerpt[:50]!r} occurs more than once in document {doc.id!r}",
            line=line,
            field=f"{name}.text",
            fix="lengthen the excerpt until it is unique, or give start and end",
        )
    return Span(doc.id, first, first + len(excerpt))


def _judgements(path: Path, line: int, obj: dict, documents: dict[str, Document]):
    raw = field(path, line, obj, "judgements", dict, required=False) or {}
    for doc_id, grade in raw.items():
        if doc_id not in documents:
            raise DataError(path, f"unknown document id {doc_id!r}", line=line, field="judgements")
        if not isinstance(grade, int) or isinstance(grade, bool):
            raise DataError(path, f"grade for {doc_id!r} must be an integer", line=line, field="judgements")
    return MappingProxyType(dict(raw))


def _optional_text(path: Path, line: int, obj: dict, name: str) -> str | None:
    value = field(path, line, obj, name, (str, int, float), required=False)
    return None if value is None else str(value)


def _check_id(path: Path, line: int, value: str | int, seen: dict[str, int]) -> str:
    ident = str(value)
    if not ident or any(c.isspace() for c in ident):
        raise DataError(path, f"{ident!r} is empty or contains whitespace", line=line, field="id")
    if ident in seen:
        raise DataError(
            path,
            f"duplicate id {ident!r} (first on line {seen[ident]})",
            line=line,
            field="id",
            fix="give every entry a unique id",
        )
    seen[ident] = line
    return ident
