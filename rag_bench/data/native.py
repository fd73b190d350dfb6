"""Load and validate a dataset in rag-bench's native format.

A dataset folder holds documents, either ``documents.jsonl`` (``id``, ``text``, optional
``title``, ``metadata``, ``language``: an ISO 639-1 code, ``data/languages.py``) or a ``docs/`` folder of
files (id = path relative to ``docs/``): ``.md``/``.txt`` read as stored, any other type parsed by the run's
parser (``rag_bench/parse/``), and ``questions.jsonl`` (checked by ``rag_bench/data/questions.py``).

Text is taken exactly as stored: files are decoded as UTF-8 with no newline translation
(a CRLF is two characters), and a leading BOM is dropped from a document's text, whichever
of the two places it came from, so offsets mean the same in both. A Markdown document
(``.md`` id) without an explicit title takes the text of its first ``# `` heading.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from types import MappingProxyType

from rag_bench.core.errors import DataError
from rag_bench.core.types import Dataset, Document, Question
from rag_bench.data.excerpts import ExcerptError
from rag_bench.data.jsonl import BOM, UTF8_FIX, field, read_jsonl, reject_unknown
from rag_bench.data.languages import check_language
from rag_bench.data.metadata import with_sidecar
from rag_bench.data.questions import QUESTION_FIELDS, check_id, parse_question
from rag_bench.parse.duplicates import apply_duplicates
from rag_bench.parse.registry import PARSERS
from rag_bench.parse.run import ParseRun, parse_files, select

__all__ = ["QUESTION_FIELDS", "load_dataset", "load_documents", "load_questions", "parse_question"]

DOCUMENT_FIELDS = {"id", "text", "title", "metadata", "language"}
_HEADING = re.compile(r"^#[ \t]+(.+?)[ \t]*#*[ \t]*\r?$", re.MULTILINE)


def load_dataset(
    folder: Path, name: str | None = None, questions: Path | None = None, parse: ParseRun | None = None
) -> Dataset:
    """Read, validate and return the dataset in ``folder`` (``questions``: another questions file; ``parse``:
    the parser settings, cache and counts for files in ``docs/``, the default parser uncached when None)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DataError(folder, "is not a folder", fix="set dataset.path to a dataset folder")
    documents, aside = load_corpus(folder, parse)
    found = load_questions(questions or folder / "questions.jsonl", {**aside, **{d.id: d for d in documents}})
    return Dataset(name=name or folder.name, documents=documents, questions=found)


def load_documents(folder: Path, parse: ParseRun | None = None) -> tuple[Document, ...]:
    """Documents from ``documents.jsonl`` or, failing that, the ``docs/`` folder."""
    return load_corpus(Path(folder), parse)[0]


def load_corpus(folder: Path, parse: ParseRun | None = None) -> tuple[tuple[Document, ...], dict[str, Document]]:
    """The corpus, and by id the documents left out of it that labels may still name (a file that failed to
    parse, as an empty document; a dropped near-duplicate, as the document it duplicates)."""
    jsonl, docs = folder / "documents.jsonl", folder / "docs"
    parse = parse or ParseRun(PARSERS.default_settings())
    aside: dict[str, Document] = {}
    if jsonl.is_file():
        documents = tuple(_documents_from_jsonl(jsonl))
    elif docs.is_dir():
        verbatim, parsed = select(docs, parse.settings)
        documents, aside = parse_files(docs, parsed, parse) if parsed else ([], {})
        both = [*_documents_from_folder(docs, verbatim), *documents]
        documents = tuple(sorted(both, key=lambda d: PurePosixPath(d.id)))  # path order, as the files sort
    else:
        raise DataError(folder, "has neither documents.jsonl nor a docs/ folder", fix="add one of them")
    if not documents:
        raise DataError(jsonl if jsonl.is_file() else docs, "holds no documents", fix="add documents")
    documents, dropped = apply_duplicates(with_sidecar(folder / "metadata.jsonl", documents), parse)
    return documents, {**aside, **dropped}


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


def _documents_from_folder(docs: Path, paths: list[Path]) -> Iterator[Document]:
    for path in paths:
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
    questions, problems = [], []
    for line, obj in read_jsonl(path):
        try:
            question = parse_question(obj, documents, path, line)
        except ExcerptError as exc:  # gathered: every excerpt problem of the file in one message
            problems.append(exc)
            continue
        _unique(path, line, question.id, seen)
        questions.append(question)
    if problems:
        raise _excerpt_problems(path, problems)
    if not questions:
        raise DataError(path, "holds no questions", fix="add at least one question")
    return tuple(questions)


def _excerpt_problems(path: Path, problems: list[ExcerptError]) -> DataError:
    """One error for every excerpt that could not be located: the first as itself when it is the only one."""
    if len(problems) == 1:
        return problems[0]
    listed = "; ".join(f"line {p.line} {p.field}: {p.problem}" for p in problems)
    return DataError(path, f"{len(problems)} excerpts could not be located: {listed}", fix=problems[0].fix)


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
