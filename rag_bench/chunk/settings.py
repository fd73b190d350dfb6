"""What every chunker's settings share, and what a chunker is built with.

Each chunker module defines its own settings dataclass (``FixedConfig`` in ``fixed.py``, ...),
derived from one of these bases, so a key that belongs to another chunker fails while Hydra
composes (``chunker=fixed chunker.piece_size=9``: no ``piece_size`` in ``FixedConfig``).
``__post_init__`` checks values before any work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
from omegaconf import MISSING

from rag_bench.chunk.contexts import Contexts
from rag_bench.chunk.prefix import PREFIXES
from rag_bench.chunk.units import UNIT_NAMES, TokenSpans
from rag_bench.core.errors import ConfigError
from rag_bench.core.options import one_of

Embed = Callable[[Sequence[str]], np.ndarray]  # texts -> (n, dim) float32 unit rows (document mode)


def resolve_overlap(size: int, overlap: float) -> int:
    """Overlap in units: ``overlap`` itself, or a fraction of ``size`` when below 1."""
    return round(overlap * size) if 0 < overlap < 1 else int(overlap)


@dataclass
class ChunkerConfig:
    """Every chunker: its name and the prefix embedded and indexed with each chunk."""

    name: str = MISSING
    prefix: str = "none"  # none, title, headings, contexts
    contexts: str | None = None  # prefix=contexts: the file `rag-bench contextualize` wrote

    embeds: ClassVar[bool] = False  # True when chunking calls the embedder (its vectors decide the cuts)

    def __post_init__(self) -> None:
        one_of("chunker.prefix", self.prefix, PREFIXES)
        if self.prefix == "contexts" and not self.contexts:
            raise ConfigError(
                "chunker.prefix=contexts needs chunker.contexts=<file>; write one with rag-bench contextualize"
            )

    def files(self, folder: Path | None) -> dict[str, Path]:
        """Files the chunks depend on (their content enters the cache key): the contexts file, if any."""
        return {"contexts": Path(self.contexts)} if self.prefix == "contexts" and self.contexts else {}

    @property
    def unit_name(self) -> str:
        return "chars"


@dataclass
class SizedChunkerConfig(ChunkerConfig):
    """A chunker whose chunks measure at most ``size`` units (characters, words or embedder tokens)."""

    size: int = 800
    unit: str = "chars"

    def __post_init__(self) -> None:
        super().__post_init__()
        one_of("chunker.unit", self.unit, UNIT_NAMES)
        if self.size < self.floor:
            raise ConfigError(f"chunker.size ({self.size}) must be at least {self.floor}")

    @property
    def floor(self) -> int:
        """The smallest size: a token window also holds [CLS] and [SEP]."""
        return 3 if self.unit == "tokens" else 1

    @property
    def unit_name(self) -> str:
        return self.unit


@dataclass
class OverlapChunkerConfig(SizedChunkerConfig):
    """A sized chunker whose consecutive chunks may share ``overlap`` units."""

    overlap: float = 0.0  # units, or a fraction of size when below 1

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.overlap < 0:
            raise ConfigError(f"chunker.overlap ({self.overlap}) must not be negative")
        if self.overlap_units >= self.size:
            raise ConfigError(
                f"chunker.overlap ({self.overlap:g}) must be smaller than chunker.size ({self.size}); "
                "give units below the size or a fraction below 1"
            )

    @property
    def overlap_units(self) -> int:
        return resolve_overlap(self.size, self.overlap)


@dataclass(frozen=True)
class ChunkerTools:
    """What a chunker may need from the other stages, resolved once per run."""

    token_spans: TokenSpans | None = None  # the embedder's tokenizer (unit=tokens)
    special_tokens: int = 0  # units every token count adds ([CLS], [SEP])
    embed: Embed | None = None  # document-mode embedding through the vector cache (semantic, cluster)
    folder: Path | None = None  # the dataset folder (given: chunks.jsonl)
    contexts: Contexts | None = None  # prefix=contexts: the file, read once
