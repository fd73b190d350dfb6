"""``diversity=collapse``: drop each candidate that is near-identical to a higher-ranked one, before the cut-off.

Near-identical: Jaccard of word 3-shingles >= ``diversity.threshold`` (``core/shingles.py``; 0.9 by
default, the rule of the ``crowded-out`` failure class). A candidate near-identical to any higher-ranked
candidate of its list is dropped, and the ones below move up. Repeated
boilerplate and duplicated documents then take one slot of the top k instead of several.
Example: [a, b, a', c] with a' near a returns [a, b, c].
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.core.shingles import NEAR_IDENTICAL, first_copies, shingles
from rag_bench.retrieve.base import Candidates, RetrievalStats
from rag_bench.retrieve.diversity.base import STAGE, DiversityConfig
from rag_bench.retrieve.resources import Resources


@dataclass
class CollapseConfig(DiversityConfig):
    name: str = "collapse"
    threshold: float = NEAR_IDENTICAL  # Jaccard of word 3-shingles at or above which a lower candidate is dropped

    def __post_init__(self) -> None:
        if not 0 < self.threshold <= 1:
            raise ConfigError(f"diversity.threshold ({self.threshold}) must lie in (0, 1], e.g. 0.9")


class Collapser:
    """Near-identical lower candidates dropped from each list (``memo``: text -> shingles, kept across runs)."""

    stage = STAGE

    def __init__(self, threshold: float, memo: dict[str, np.ndarray]) -> None:
        self.threshold, self.memo = threshold, memo

    def apply(self, found: Candidates) -> Candidates:
        start = time.perf_counter()
        texts = [c.text for c in found.chunks]
        indices = np.full_like(found.indices, -1)
        scores = np.full_like(found.scores, -np.inf)
        dropped = []
        for q, row in enumerate(found.indices):
            at = np.flatnonzero(row >= 0)
            sets = [self._shingles(texts[c]) for c in row[at].tolist()]
            keep = at[first_copies(sets, self.threshold) < 0]
            indices[q, : len(keep)], scores[q, : len(keep)] = row[keep], found.scores[q, keep]
            dropped.append(len(at) - len(keep))
        details = {
            "dropped_per_question": float(np.mean(dropped)) if dropped else 0.0,
            "questions_with_drops": int(np.count_nonzero(dropped)),
        }
        return Candidates(
            found.chunks, indices, scores, RetrievalStats(seconds=time.perf_counter() - start, details=details)
        )

    def _shingles(self, text: str) -> np.ndarray:
        found = self.memo.get(text)
        if found is None:
            found = self.memo[text] = shingles(text)
        return found


def build(cfg: CollapseConfig, resources: Resources) -> Collapser:
    return Collapser(cfg.threshold, resources.workspace.remember("shingles", "texts", dict))
