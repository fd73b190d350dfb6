"""The chunking stage: its protocol and the chunk builders the chunkers share."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from rag_bench.chunk.contexts import Contexts
from rag_bench.chunk.prefix import prefixer
from rag_bench.chunk.settings import ChunkerTools, Embed
from rag_bench.chunk.units import Units, measure
from rag_bench.core.types import Chunk, Document

# (text, units, size, overlap) -> character ranges
Ranges = Callable[[str, Units, int, int], list[tuple[int, int]]]


class Chunker(Protocol):
    """Cuts a document into chunks whose offsets index into ``doc.text``."""

    def split(self, doc: Document) -> list[Chunk]: ...


@runtime_checkable
class Warming(Protocol):
    """A chunker that can do its expensive work for all documents at once before ``split`` (one batch)."""

    def warm(self, docs: Sequence[Document]) -> None: ...


class Splitter(Protocol):
    """Character ranges of a text, from the embeddings of its parts (semantic, cluster)."""

    def parts(self, text: str, units: Units) -> list[str]:
        """The texts that ``ranges`` will embed."""
        ...

    def ranges(self, text: str, units: Units, embed: Embed) -> list[tuple[int, int]]: ...


@dataclass(frozen=True)
class RangeChunker:
    """A chunker that computes character ranges with a ``Ranges`` function."""

    ranges: Ranges
    size: int
    overlap: int
    unit: str = "chars"
    prefix: str = "none"
    tools: ChunkerTools = ChunkerTools()

    def split(self, doc: Document) -> list[Chunk]:
        units = measure_units(doc, self.unit, self.tools)
        return build_chunks(
            doc, self.ranges(doc.text, units, self.size, self.overlap), self.prefix, self.tools.contexts
        )


@dataclass(frozen=True)
class EmbeddingChunker:
    """A chunker whose ranges come from a ``Splitter`` that embeds parts of the text with ``tools.embed``."""

    splitter: Splitter
    unit: str = "chars"
    prefix: str = "none"
    tools: ChunkerTools = ChunkerTools()

    def split(self, doc: Document) -> list[Chunk]:
        units = measure_units(doc, self.unit, self.tools)
        ranges = self.splitter.ranges(doc.text, units, self.tools.embed)
        return build_chunks(doc, ranges, self.prefix, self.tools.contexts)

    def warm(self, docs: Sequence[Document]) -> None:
        """Embed what splitting ``docs`` needs in one call (one progress bar; then ``split`` hits the cache)."""
        texts = []
        for doc in docs:
            texts.extend(self.splitter.parts(doc.text, measure_units(doc, self.unit, self.tools)))
        if texts:
            self.tools.embed(texts)


def measure_units(doc: Document, unit: str, tools: ChunkerTools) -> Units:
    return measure(doc.text, unit, tools.token_spans, tools.special_tokens)


def build_chunks(
    doc: Document, ranges: list[tuple[int, int]], prefix: str = "none", contexts: Contexts | None = None
) -> list[Chunk]:
    """Chunks for ``ranges`` of ``doc``, trimmed of surrounding whitespace, empty ones dropped."""
    prefix_at = prefixer(prefix, doc, contexts)
    chunks, seen = [], set()
    for start, end in ranges:
        piece = doc.text[start:end]
        stripped = piece.strip()
        if not stripped:
            continue
        start += len(piece) - len(piece.lstrip())
        end = start + len(stripped)
        if (start, end) in seen:
            continue
        seen.add((start, end))
        chunks.append(Chunk(doc.id, start, end, stripped, prefix_at(start, end)))
    return chunks
