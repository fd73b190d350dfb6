"""``diversity=collapse``: drop each candidate that is near-identical to a higher-ranked one, before the cut-off.

Near-identical: Jaccard of word 3-shingles >= ``diversity.threshold`` (``core/shingles.py``; 0.9 by
default, the rule of the ``crowded-out`` failure class). A candidate near-identical to any higher-ranked
candidate of its list is dropped, and the ones below move up. Repeated
boilerplate and duplicated documents then take one slot of the top k instead of several.
Example: [a, b, a', c] with a' near a returns [a, b, c].
Every list is collapsed at once (``near.py``): each distinct text is shingled once, in bulk.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from operator import attrgetter

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.core.shingles import NEAR_IDENTICAL
from rag_bench.retrieve.base import Candidates, RetrievalStats
from rag_bench.retrieve.diversity.base import STAGE, DiversityConfig
from rag_bench.retrieve.diversity.near import copied, shingle_sets
from rag_bench.retrieve.resources import Resources
from rag_bench.retrieve.steps import distinct


@dataclass
class CollapseConfig(DiversityConfig):
    name: str = "collapse"
    threshold: float = NEAR_IDENTICAL  # Jaccard of word 3-shingles at or above which a lower candidate is dropped

    def __post_init__(self) -> None:
        if not 0 < self.threshold <= 1:
            raise ConfigError(f"diversity.threshold ({self.threshold}) must lie in (0, 1], e.g. 0.9")


class ShingleStore:
    """The shingle sets of every text seen so far in a process: set i is ``values[offsets[i]:offsets[i + 1]]``
    (``near.shingle_sets``); texts are added in bulk. The first texts are shingled as given, set i the i-th
    (a text given twice has two equal sets, which every rule treats as one: J = 1); the table from text to
    set is built when a later call needs it."""

    def __init__(self) -> None:
        self.number: dict[str, int] = {}
        self.first: list[str] = []  # the first call's texts, set i the i-th, not yet in ``number``
        self.values, self.offsets = np.zeros(0, np.uint64), np.zeros(1, np.int64)

    def numbers(self, texts: list[str]) -> np.ndarray:
        """Each text's set number, the texts not seen before shingled (all of them at once)."""
        if len(self.offsets) == 1:  # nothing seen yet
            self.values, self.offsets = shingle_sets(texts)
            self.first = texts
            return np.arange(len(texts), dtype=np.int64)
        if self.first:
            self.number.update(zip(self.first, range(len(self.first)), strict=True))
            self.first = []
        missing = list({t: None for t in texts if t not in self.number})
        if missing:
            values, offsets = shingle_sets(missing)
            count = len(self.offsets) - 1
            self.offsets = np.r_[self.offsets, offsets[1:] + self.offsets[-1]]
            self.values = np.concatenate([self.values, values])
            self.number.update(zip(missing, range(count, count + len(missing)), strict=True))
        return np.fromiter(map(self.number.__getitem__, texts), dtype=np.int64, count=len(texts))


class Collapser:
    """Near-identical lower candidates dropped from each list (``store``: shingle sets, kept across runs)."""

    stage = STAGE

    def __init__(self, threshold: float, store: ShingleStore) -> None:
        self.threshold, self.store = threshold, store

    def apply(self, found: Candidates) -> Candidates:
        start = time.perf_counter()
        valid = found.indices >= 0
        used = distinct(found.indices[valid])
        set_of = np.full(len(found.chunks) + 1, -1, dtype=np.int64)  # table index -> its text's set (last: padding)
        set_of[used] = self.store.numbers(list(map(attrgetter("text"), map(found.chunks.__getitem__, used.tolist()))))
        copies = copied(set_of[found.indices], self.store.values, self.store.offsets, self.threshold)
        keep = valid & ~copies
        rows, columns = np.nonzero(keep)
        position = np.cumsum(keep, axis=1)[rows, columns] - 1
        indices = np.full_like(found.indices, -1)
        scores = np.full_like(found.scores, -np.inf)
        indices[rows, position], scores[rows, position] = found.indices[rows, columns], found.scores[rows, columns]
        dropped = valid.sum(axis=1) - keep.sum(axis=1)
        details = {
            "dropped_per_question": float(np.mean(dropped)) if len(dropped) else 0.0,
            "questions_with_drops": int(np.count_nonzero(dropped)),
        }
        return Candidates(
            found.chunks, indices, scores, RetrievalStats(seconds=time.perf_counter() - start, details=details)
        )


def build(cfg: CollapseConfig, resources: Resources) -> Collapser:
    return Collapser(cfg.threshold, resources.workspace.remember("shingles", "texts", ShingleStore))
