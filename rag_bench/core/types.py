"""Plain, frozen data that travels between pipeline stages."""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from rag_bench.core.filters import Filter


@dataclass(frozen=True)
class Document:
    """One source document; chunk and span offsets index into ``text``."""

    id: str
    text: str
    title: str | None = None
    metadata: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    pages: tuple[int, ...] = ()  # offset where each page (PDF page, slide) starts; empty for a file without pages
    parser: str | None = None  # the reader that made ``text`` from its file ("pypdf"); None: the text as stored
    language: str | None = None  # ISO 639-1 code (rag_bench/data/languages.py), when the dataset says

    def page_at(self, offset: int) -> int | None:
        """The page (from 1) holding character ``offset``; None for a document without pages."""
        return bisect.bisect_right(self.pages, offset) if self.pages else None


@dataclass(frozen=True)
class Span:
    """Evidence: characters ``[start, end)`` of document ``doc_id``."""

    doc_id: str
    start: int
    end: int

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class Lost:
    """Evidence quoted as an excerpt that the parse of its document does not hold ("lost by the parser")."""

    doc_id: str | None  # the document it names (None: it named none and no document holds it)
    text: str  # the excerpt as labelled; its length counts as lost evidence characters
    page: int | None = None  # the page hint it was given

    def __len__(self) -> int:
        return len(self.text)


@dataclass(frozen=True)
class Question:
    """A labelled question: evidence spans, document judgements, or neither (unanswerable)."""

    id: str
    text: str
    spans: tuple[Span, ...] = ()
    judgements: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    answer: str | None = None
    category: str | None = None
    split: str | None = None
    source: str | None = None  # where it came from, e.g. synthetic (rag-bench synthesize)
    filter: Filter | None = None  # what the asker may see: retrieval keeps to documents it allows
    lost: tuple[Lost, ...] = ()  # excerpts the parse did not keep: evidence no chunk can hit
    language: str | None = None  # ISO 639-1 code of the question's text, when the dataset says

    @property
    def labelled(self) -> bool:
        return bool(self.spans) or bool(self.lost) or any(g > 0 for g in self.judgements.values())

    @property
    def has_evidence(self) -> bool:
        """Labelled by evidence (spans, located or lost), so span metrics apply."""
        return bool(self.spans) or bool(self.lost)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of a document: source text is ``document.text[start:end]``.

    ``prefix`` (title, heading trail, context) is embedded and BM25-indexed with the
    chunk but never counted as source text by character metrics.
    """

    doc_id: str
    start: int
    end: int
    text: str
    prefix: str = ""

    @property
    def id(self) -> str:
        return f"{self.doc_id}:{self.start}-{self.end}"

    @property
    def indexed_text(self) -> str:
        """The text that is embedded and BM25-indexed."""
        return f"{self.prefix}\n{self.text}" if self.prefix else self.text

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class Dataset:
    """Documents plus questions, as loaded and validated."""

    name: str
    documents: tuple[Document, ...]
    questions: tuple[Question, ...]
