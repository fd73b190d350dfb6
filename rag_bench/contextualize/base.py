"""What every context generator shares: its settings' base and what it does (``contexts``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from omegaconf import MISSING

from rag_bench.core.progress import Progress
from rag_bench.core.types import Chunk, Document


@dataclass
class ContextGeneratorConfig:
    """Every context generator: its name."""

    name: str = MISSING


class ContextGenerator(Protocol):
    """Writes one short context per chunk of a document; ``usage``: API tokens, ``close()`` its client."""

    usage: dict[str, int]

    def contexts(self, doc: Document, chunks: Sequence[Chunk], bar: Progress) -> list[str]: ...

    def close(self) -> None: ...
