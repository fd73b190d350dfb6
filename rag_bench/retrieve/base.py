"""The retrieval seam: a ``Retriever`` returns, per question, ranked candidate chunks with scores.

rag-bench's own BM25 and dense retrievers, a fusion of any retrievers, and (later) external
ones all sit behind it, so every metric, report and the gate work the same on each. A
retriever's candidates index into a chunk table: the corpus's chunks for rag-bench's own
indexes, or chunks the retriever names itself (an external service's passages).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol, runtime_checkable

import numpy as np
from omegaconf import MISSING

from rag_bench.core.cache import digest
from rag_bench.core.errors import ConfigError
from rag_bench.core.filters import Filter, MetadataTable
from rag_bench.core.types import Chunk, Question
from rag_bench.retrieve.variant_settings import QueryVariantSettings

FILTER_MODES = ("pre", "post", "none")  # retrieval.filter_mode: inside the index / drop after / ignore


@dataclass(frozen=True)
class Corpus:
    """The chunks of one dataset under one chunker, and the key that names them."""

    key: str
    chunks: list[Chunk]
    documents: Mapping[str, Mapping[str, object]] = field(default_factory=dict)  # doc id -> its metadata

    @cached_property
    def passages(self) -> list[str]:
        """The indexed text (prefix and source) of every chunk, built once per corpus."""
        return [c.indexed_text for c in self.chunks]

    @cached_property
    def metadata(self) -> MetadataTable:
        """Each chunk's document metadata, for filters (a chunk carries its document's metadata)."""
        return MetadataTable([self.documents.get(c.doc_id, {}) for c in self.chunks])

    @cached_property
    def metadata_key(self) -> str:
        """A key naming every document's metadata (filtered lists depend on it)."""
        return digest(sorted((d, sorted(m.items(), key=str)) for d, m in self.documents.items()))


@dataclass(frozen=True)
class Query:
    """What a retriever is asked for one question: its text, embedded in ``input_type`` mode by dense retrievers.

    ``input_type="document"`` embeds the text as a passage (a hypothetical answer, HyDE).
    """

    id: str  # the question's id
    text: str
    input_type: str = "query"
    filter: Filter | None = None  # the documents the question may see (retrieval.filter_mode decides how)
    variant: str = ""  # "" = the question itself; else the rewrite's kind (keywords, hyde, ...: retrieve/variants.py)

    @classmethod
    def of(cls, question: Question) -> Query:
        return cls(question.id, question.text, filter=question.filter)


@dataclass(frozen=True)
class RetrievalStats:
    """What producing one candidate list cost."""

    index_bytes: int = 0
    embedded: int = 0  # texts newly embedded for it
    cache_hits: int = 0  # chunk and question vectors served from the cache
    truncated: int = 0  # chunks longer than the embedder's input limit
    ann_recall: float | None = None  # approximate index: share of the exact top depth it found
    filtered_ann_recall: float | None = None  # the same over filtered queries, against exact filtered search
    index: Mapping[str, object] = field(default_factory=dict)  # dense index report: build, size, latency
    files: Mapping[str, str] = field(default_factory=dict)  # run-folder files (name -> text), e.g. the SQL run
    seconds: float = 0.0
    reused: bool = False  # the whole list came from the cache
    keyed: bool = False  # it went through the candidate cache: its cache key names everything it depends on
    steps: Mapping[str, float] = field(default_factory=dict)  # seconds of named steps within ``seconds``
    # what only this retriever reports (an external one's source, latency, texts located ...), written to
    # metrics.json as stats.retrieval[<retriever name>]; None (not {}) so lists cached before it read back
    details: Mapping[str, object] | None = None


@dataclass(frozen=True)
class Candidates:
    """Ranked candidates of every question: (n_questions, width) int64 chunk indices (-1 padded) and scores.

    ``parts`` holds the first-stage lists a fusion combined (by retriever name), indexed into
    the same ``chunks``, so a report can show where each candidate ranked in each list.
    """

    chunks: Sequence[Chunk]
    indices: np.ndarray
    scores: np.ndarray
    stats: RetrievalStats = RetrievalStats()
    parts: Mapping[str, Candidates] = field(default_factory=dict)


class Retriever(Protocol):
    """Ranks chunks for each query (one per question, in question order); ``name`` labels its list."""

    name: str

    def retrieve(self, queries: Sequence[Query], depth: int) -> Candidates: ...


@runtime_checkable
class Keyed(Protocol):
    """A retriever whose candidate lists may be cached: ``cache_key`` names all they depend on.

    Besides the queries and the depth, which the cache adds itself.
    """

    def cache_key(self) -> tuple: ...


@dataclass
class _Retrieval:
    mode: str = MISSING
    depth: int = 20  # candidates taken from each index
    filter_mode: str = "pre"  # questions' filters: pre (inside each index), post (drop after), none (ignore)


@dataclass
class RetrievalConfig(QueryVariantSettings, _Retrieval):
    """Every retriever: its mode (the option's name), how many candidates it returns per question, query variants."""

    def __post_init__(self) -> None:
        if self.depth < 1:
            raise ConfigError(f"retrieval.depth ({self.depth}) must be at least 1")
        if self.filter_mode not in FILTER_MODES:
            raise ConfigError(f"retrieval.filter_mode ({self.filter_mode!r}) must be one of: {', '.join(FILTER_MODES)}")
        for klass in type(self).__mro__:  # each settings mixin checks its own keys
            check = vars(klass).get("check")
            if check is not None:
                check(self)
