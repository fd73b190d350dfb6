"""Load and validate a dataset in rag-bench's native format.

A dataset folder holds documents, either ``documents.jsonl`` (``id``, ``text``, optional
``title``, ``metadata``, ``language``: an ISO 639-1 code, ``data/languages.py``) or a ``docs/``
folder of ``.md``/``.txt`` files (id = path relative to ``docs/``), and ``questions.jsonl``
(checked by ``rag_bench/data/questions.py``).

Text is taken exactly as stored: files are decoded as UTF-8 with no newline translation
(a CRLF is two characters), and a leading BOM is dropped from a document's text, whichever
of the two places it came from, so offsets mean the same in both. A Markdown document
(``.md`` id) without an explicit title takes the text of its first ``# `` heading.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType

from rag_bench.core.errors import DataError
from rag_bench.core.types import Dataset, Document, Question
from rag_bench.data.jsonl import BOM, UTF8_FIX, field, read_jsonl, reject_unknown
from rag_bench.data.languages import check_language
from rag_bench.data.metadata import with_sidecar
from rag_bench.data.questions import QUESTION_FIELDS, check_id, parse_question

__all__ = ["QUESTION_FIELDS", "load_dataset", "load_documents", "load_questions", "parse_question"]

DOCUMENT_FIELDS = {"id", "text", "title", "metadata", "language"}
_HEADING = re.compile(r"^#[ \t]+(.+?)[ \t]*#*[ \t]*\r?$", re.MULTILINE)


def load_dataset(folder: Path, name: str | None = None, questions: Path | None = None) -> Dataset:
    """Read, validate and return the dataset in ``folder`` (``questions``: another questions file)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DataError(folder, "is not a folder", fix="set dataset.path to a dataset folder")
    documents = load_documents(folder)
    found = load_questions(questions or folder / "questions.jsonl", {d.id: d for d in documents})
    return Dataset(name=name or folder.name, documents=documents, questions=found)


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


def _documents_from_jsonl(path: Path) -> Iterator[Document]:
    seen: dict[str, int] = {}
    for line, obj in read_jsonl(path):
        reject_unknown(path, line, obj, DOCUMENT_FIELDS)
        doc_id = _unique(path, line, check_id(path, line, field(path, line, obj, "id", (str, int))), seen)
        text = field(path, line, obj, "text", str).removeprefix("\ufeff")
        title = field(path, line, obj, "title", str, required=False)
        metadata = field(path, line, obj, "metadata", dict, required=False) or {}
        yield Document(
            id=doc_id,
            text=text,
            title=title or markdown_title(doc_id, text),
            metadata=MappingProxyType(dict(metadata)),
            language=check_language(path, line, obj.get("language")),
        )


def _documents_from_folder(docs: Path) -> Iterator[Document]:
    for path in sorted(p for p in docs.rglob("*") if p.suffix in {".md", ".txt"} and p.is_file()):
        doc_id = path.relative_to(docs).as_posix()
        if any(c.isspace() for c in doc_id):
            raise DataError(path, "file name contains whitespace", fix="rename the file without spaces")
        text = read_text(path)
        yield Document(id=doc_id, text=text, title=markdown_title(doc_id, text))


def read_text(path: Path) -> str:
    """A document file's text as stored: UTF-8, no newline translation, a leading BOM dropped."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataError(path, f"cannot be read ({exc.strerror})", fix="check the file's permissions") from None
    data = data.removeprefix(BOM)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DataError(
            path, f"is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})", line=line, fix=UTF8_FIX
        ) from None


def markdown_title(doc_id: str, text: str) -> str | None:
    """The first ``# `` heading of a Markdown document (an ``.md`` id), else None."""
    heading = _HEADING.search(text) if doc_id.endswith(".md") else None
    return heading.group(1) if heading else None


def load_questions(path: Path, documents: dict[str, Document]) -> tuple[Question, ...]:
    """Questions from ``questions.jsonl``, every evidence span checked against ``documents``."""
    if not path.is_file():
        raise DataError(path, "not found", fix="add questions.jsonl next to the documents")
    seen: dict[str, int] = {}
    questions = []
    for line, obj in read_jsonl(path):
        question = parse_question(obj, documents, path, line)
        _unique(path, line, question.id, seen)
        questions.append(question)
    if not questions:
        raise DataError(path, "holds no questions", fix="add at least one question")
    return tuple(questions)


def _unique(path: Path, line: int, ident: str, seen: dict[str, int]) -> str:
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
