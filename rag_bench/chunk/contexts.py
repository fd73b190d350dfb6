"""The contexts file: short texts that situate each chunk in its document (``chunker.prefix=contexts``).

``rag-bench contextualize`` writes it; retrieval runs only read it. JSON Lines, one chunk a line:

    {"doc_sha256": "9f86d0...", "start": 120, "end": 918, "context": "From the 2024 report, ...", "doc_id": "a.md"}

A context is found by the sha256 of the document's text (UTF-8) and the chunk's character span
``[start, end)``, so a file goes stale, and says so, when a document's text or the chunker changes.
``doc_id`` is informative only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.core.files import write_text
from rag_bench.core.types import Chunk, Document
from rag_bench.data.jsonl import field, read_jsonl

Key = tuple[str, int, int]  # (document sha256, start, end)
FIX = (
    "run `rag-bench contextualize` with the same dataset and chunker settings "
    "(chunker=..., chunker.size=..., chunker.unit=...) and pass the file it writes as chunker.contexts"
)


@dataclass(frozen=True)
class ContextEntry:
    """The context of chunk ``[start, end)`` of the document whose text hashes to ``doc_sha256``."""

    doc_sha256: str
    start: int
    end: int
    context: str
    doc_id: str = ""

    @property
    def key(self) -> Key:
        return (self.doc_sha256, self.start, self.end)

    @classmethod
    def of(cls, doc: Document, chunk: Chunk, context: str) -> ContextEntry:
        return cls(document_hash(doc.text), chunk.start, chunk.end, context, doc.id)

    def to_json(self) -> dict:
        return {
            "doc_sha256": self.doc_sha256,
            "start": self.start,
            "end": self.end,
            "context": self.context,
            "doc_id": self.doc_id,
        }


def document_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_hash(path: str | Path, fix: str = FIX) -> str:
    """sha256 of a file's bytes (what a chunk cache key records of a file it depends on); ``fix``: how to
    get the file when it cannot be read."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as exc:
        raise DataError(path, f"cannot be read ({exc.strerror})", fix=fix) from None


class Contexts:
    """The contexts of one file, looked up by document and chunk span."""

    def __init__(self, path: str | Path, entries: Iterable[ContextEntry], fix: str = FIX) -> None:
        self.path = Path(path)
        self.by_key = {e.key: e for e in entries}
        self.fix = fix  # what a missing context's error tells the user to do

    def __len__(self) -> int:
        return len(self.by_key)

    def for_document(self, doc: Document) -> Callable[[int, int], str]:
        """A function from a chunk span of ``doc`` to its context; DataError when the file lacks it."""
        sha = document_hash(doc.text)

        def context(start: int, end: int) -> str:
            found = self.by_key.get((sha, start, end))
            if found is None:
                raise DataError(
                    self.path, f"has no context for document {doc.id!r} chunk [{start}, {end})", fix=self.fix
                )
            return found.context

        return context


def read_contexts(path: str | Path, fix: str = FIX) -> Contexts:
    """The contexts file at ``path``, checked line by line; ``fix`` is the advice for a missing context."""
    path = Path(path)
    entries: dict[Key, tuple[int, ContextEntry]] = {}
    for line, obj in read_jsonl(path):
        entry = ContextEntry(
            field(path, line, obj, "doc_sha256", str),
            field(path, line, obj, "start", int),
            field(path, line, obj, "end", int),
            field(path, line, obj, "context", str),
            str(field(path, line, obj, "doc_id", (str, int), required=False) or ""),
        )
        if not 0 <= entry.start < entry.end:
            raise DataError(path, f"span [{entry.start}, {entry.end}) is empty or negative", line=line, field="start")
        if entry.key in entries:
            raise DataError(
                path,
                f"repeats the span [{entry.start}, {entry.end}) of line {entries[entry.key][0]}",
                line=line,
                fix="keep one context per document and span",
            )
        entries[entry.key] = (line, entry)
    return Contexts(path, (entry for _, entry in entries.values()), fix)


def write_contexts(path: str | Path, entries: Iterable[ContextEntry]) -> int:
    """Write ``entries`` to ``path`` atomically (temporary file, then rename); returns how many."""
    lines = [json.dumps(entry.to_json(), ensure_ascii=False) + "\n" for entry in entries]
    write_text(path, "".join(lines))
    return len(lines)
