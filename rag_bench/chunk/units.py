"""Length units for chunk sizes: characters, words, or the embedder's tokens.

A ``Units`` object lists where each unit of one document starts and ends, so any
character range can be measured in units and a window of units mapped back to
exact character offsets.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rag_bench.core.errors import ConfigError

# (n_units, 2) int64 array of [start, end) character offsets of each unit of a text
TokenSpans = Callable[[str], np.ndarray]

_WORD = re.compile(r"\S+")
UNIT_NAMES = ("chars", "words", "tokens")


@dataclass(frozen=True)
class Units:
    """Unit boundaries of one text; ``special`` units are added to every count (e.g. [CLS] [SEP])."""

    starts: np.ndarray  # (n_units,) int64, ascending
    ends: np.ndarray  # (n_units,) int64
    special: int = 0
    chars: bool = False

    def count(self, start: int, end: int) -> int:
        """Number of units lying wholly inside ``[start, end)``, plus the special units."""
        if self.chars:
            return end - start
        first = int(np.searchsorted(self.starts, start, side="left"))
        stop = int(np.searchsorted(self.ends, end, side="right"))
        return max(0, stop - first) + self.special

    def __len__(self) -> int:
        return len(self.starts)


def measure(text: str, unit: str, token_spans: TokenSpans | None = None, special: int = 0) -> Units:
    """Units of ``text``: ``chars``, ``words`` (runs of non-space) or ``tokens`` (needs ``token_spans``)."""
    if unit == "chars":
        positions = np.arange(len(text), dtype=np.int64)
        return Units(positions, positions + 1, chars=True)
    if unit == "words":
        spans = np.array([m.span() for m in _WORD.finditer(text)], dtype=np.int64).reshape(-1, 2)
        return Units(spans[:, 0], spans[:, 1])
    if unit == "tokens":
        if token_spans is None:
            raise ConfigError("chunker.unit=tokens needs an embedder with a tokenizer; use chars or words")
        spans = np.asarray(token_spans(text), dtype=np.int64).reshape(-1, 2)
        return Units(spans[:, 0], spans[:, 1], special=special)
    raise ConfigError(f"chunker.unit ({unit!r}) must be one of: {', '.join(UNIT_NAMES)}")
