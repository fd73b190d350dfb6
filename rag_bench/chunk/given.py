"""The ``given`` chunker: the chunks a pre-chunked corpus came with, reproduced exactly.

``rag-bench import prechunked`` saves the original chunk boundaries next to the documents
as ``chunks.jsonl``, one ``{"id", "doc_id", "start", "end"}`` per chunk in corpus order.
This chunker returns those chunks with their offsets unchanged (no whitespace trimming).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rag_bench.chunk.prefix import prefixer
from rag_bench.chunk.settings import ChunkerConfig, ChunkerTools
from rag_bench.core.errors import DataError
from rag_bench.core.types import Chunk, Document
from rag_bench.data.jsonl import field, read_jsonl

MANIFEST = "chunks.jsonl"  # written by `rag-bench import prechunked`
MISSING_FIX = (
    "import the corpus with `rag-bench import prechunked CHUNKS.jsonl DEST` (it writes DEST/chunks.jsonl), "
    "put a chunks.jsonl of {id, doc_id, start, end} rows in the dataset folder, or name one with "
    "chunker.manifest=FILE"
)


@dataclass
class GivenConfig(ChunkerConfig):
    name: str = "given"
    manifest: str | None = None  # the chunk manifest; null = chunks.jsonl in the dataset folder

    def manifest_path(self, folder: Path | None) -> Path:
        return Path(self.manifest) if self.manifest else Path(folder or ".") / MANIFEST

    def files(self, folder: Path | None) -> dict[str, Path]:
        return {**super().files(folder), "manifest": self.manifest_path(folder)}


def build(cfg: GivenConfig, tools: ChunkerTools) -> GivenChunker:
    return GivenChunker(cfg.manifest_path(tools.folder), cfg.prefix, tools.contexts)


class GivenChunker:
    """Splits each document at the boundaries saved in a chunk manifest."""

    def __init__(self, manifest_path: Path, prefix: str = "none", contexts=None) -> None:
        self.manifest_path = Path(manifest_path)
        self.prefix = prefix
        self.contexts = contexts
        self._ranges = read_manifest(self.manifest_path)

    def split(self, doc: Document) -> list[Chunk]:
        ranges = self._ranges.get(doc.id)
        if ranges is None:
            raise DataError(
                self.manifest_path,
                f"has no chunks for document {doc.id!r}",
                fix="use the chunks.jsonl imported with this dataset, or another chunker",
            )
        prefix_at = prefixer(self.prefix, doc, self.contexts)
        chunks = []
        for line, start, end in ranges:
            if end > len(doc.text):
                raise DataError(
                    self.manifest_path,
                    f"end {end} lies past document {doc.id!r} ({len(doc.text)} characters)",
                    line=line,
                    field="end",
                    fix="re-import the dataset so documents and manifest match",
                )
            chunks.append(Chunk(doc.id, start, end, doc.text[start:end], prefix_at(start, end)))
        return chunks


def read_manifest(path: Path) -> dict[str, list[tuple[int, int, int]]]:
    """Document id -> its chunks' ``(line, start, end)`` in manifest order."""
    if not Path(path).is_file():
        raise DataError(
            path,
            "is missing: chunker=given reads the chunks a pre-chunked corpus came with",
            fix=MISSING_FIX,
        )
    ranges: dict[str, list[tuple[int, int, int]]] = {}
    for line, obj in read_jsonl(Path(path)):
        doc_id = str(field(path, line, obj, "doc_id", (str, int)))
        start, end = field(path, line, obj, "start", int), field(path, line, obj, "end", int)
        if not 0 <= start < end:
            raise DataError(
                path,
                f"chunk [{start}, {end}) is empty or negative",
                line=line,
                field="start",
                fix="give 0 <= start < end",
            )
        ranges.setdefault(doc_id, []).append((line, start, end))
    return ranges
