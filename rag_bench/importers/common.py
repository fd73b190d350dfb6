"""What every importer shares: native rows, checked ids, exact text reads, and writing a folder."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.core.files import write_together
from rag_bench.core.types import Dataset
from rag_bench.data import questions
from rag_bench.data.conventions import FILE as CONVENTIONS
from rag_bench.data.conventions import Conventions, conventions_bytes
from rag_bench.data.jsonl import jsonl_bytes
from rag_bench.data.native import load_dataset

NATIVE_FILES = ("documents.jsonl", "questions.jsonl")


@dataclass(frozen=True)
class Imported:
    """A dataset converted to native rows (see ``rag_bench.data.native``), ready to write."""

    documents: list[dict]
    questions: list[dict]
    extra: dict[str, list[dict]] = field(default_factory=dict)  # more JSONL files, e.g. chunks.jsonl
    notes: tuple[str, ...] = ()  # what the importer skipped, for the user
    conventions: Conventions | None = None  # the source's published settings (conventions.yaml)


def write_native(imported: Imported, dest: Path, name: str | None = None) -> Dataset:
    """Write ``imported`` into the folder ``dest`` (created if needed), then load it back validated.

    The files are replaced together (``files.write_together``): a full disk or Ctrl-C midway leaves
    a dataset already in ``dest`` as it was (``import trec --force`` into its own dataset).
    """
    dest = Path(dest)
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise DataError(dest, "is not a folder", fix="give a folder path as DEST") from None
    rows = {"documents.jsonl": imported.documents, "questions.jsonl": imported.questions, **imported.extra}
    files = {dest / name: jsonl_bytes(table) for name, table in rows.items()}
    if imported.conventions is not None:  # the source's published settings, written with the data
        files[dest / CONVENTIONS] = conventions_bytes(imported.conventions)
    write_together(files)
    if imported.conventions is None:  # another source's file would give a wrong hint
        (dest / CONVENTIONS).unlink(missing_ok=True)
    return load_dataset(dest, name)


def check_id(path: Path, value: object, field_name: str, line: int | None = None) -> str:
    """``value`` as an id: text without whitespace, as native datasets require."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise DataError(path, f"must be a string or integer, got {type(value).__name__}", line=line, field=field_name)
    return questions.check_id(path, line, value, field_name, fix="use ids without spaces, tabs or newlines")


def read_text(path: Path) -> str:
    """The UTF-8 text of ``path`` exactly as stored (no newline translation, so offsets hold)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise DataError(path, f"cannot be read ({exc.strerror})", fix="check the path") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(path, f"is not UTF-8 (byte {exc.start})", fix="save it as UTF-8") from None


def document_row(doc_id: str, text: str, title: str | None = None, metadata: Mapping | None = None) -> dict:
    """A ``documents.jsonl`` row; empty optional fields are left out."""
    row: dict = {"id": doc_id, "text": text}
    if title:
        row["title"] = title
    if metadata:
        row["metadata"] = dict(metadata)
    return row


def question_row(
    qid: str,
    text: str,
    evidence: Sequence[Mapping] = (),
    judgements: Mapping[str, int] | None = None,
    answer: str | None = None,
    category: str | None = None,
    split: str | None = None,
) -> dict:
    """A ``questions.jsonl`` row; empty optional fields are left out."""
    row: dict = {"id": qid, "question": text}
    optional = {
        "evidence": list(evidence),
        "judgements": dict(judgements or {}),
        "answer": answer,
        "category": category,
        "split": split,
    }
    row.update({key: value for key, value in optional.items() if value not in (None, [], {})})
    return row


def add_judgement(
    qrels: dict[str, dict[str, int]], first_seen: dict, path: Path, line: int, qid: str, doc_id: str, grade: int
) -> None:
    """Record one judgement; a DataError when the (query, document) pair was judged before."""
    if (qid, doc_id) in first_seen:
        raise DataError(
            path,
            f"judges {doc_id!r} for {qid!r} again (first on line {first_seen[qid, doc_id]})",
            line=line,
            fix="keep one grade per pair",
        )
    first_seen[qid, doc_id] = line
    qrels.setdefault(qid, {})[doc_id] = grade
