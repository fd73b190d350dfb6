"""``expand=merge`` (auto-merging): when at least ``threshold`` of a parent's chunks are retrieved, return the
parent in their place, where its best-ranked chunk ranked; other chunks stay as they are.

A parent's chunks are the corpus chunks whose parent it is (``levels.py``); a question's retrieved chunks
are its whole list (``retrieval.depth`` per retriever). Example: section A has chunks a1..a4; a list
[a1, x, a3, b1] with threshold 0.5 holds 2 of A's 4 (0.5 >= 0.5) and returns [A, x, b1]. Lists of a
retriever's own chunks are returned as they are. LlamaIndex's AutoMergingRetriever (simple ratio
threshold 0.5) describes the pattern.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.retrieve.base import Candidates, Corpus, RetrievalStats
from rag_bench.retrieve.expand.base import STAGE, ExpandConfig, hierarchy, on_corpus, unit_indices
from rag_bench.retrieve.expand.levels import Hierarchy, LevelSettings
from rag_bench.retrieve.resources import Resources
from rag_bench.retrieve.steps import UnitTable, compact, distinct, first_in_row


@dataclass
class MergeConfig(LevelSettings, ExpandConfig):
    name: str = "merge"
    threshold: float = 0.5  # share of a parent's chunks that must be retrieved for the parent to replace them

    def __post_init__(self) -> None:
        self.check_level()
        if not 0 < self.threshold <= 1:
            raise ConfigError(f"expand.threshold ({self.threshold}) must lie in (0, 1], e.g. 0.5")


class MergeExpander:
    """Chunks replaced by their parent when enough of its chunks were retrieved."""

    stage = STAGE

    def __init__(self, parents: Hierarchy, threshold: float, corpus: Corpus, documents: dict) -> None:
        self.parents, self.threshold, self.corpus, self.documents = parents, threshold, corpus, documents

    def apply(self, found: Candidates) -> Candidates:
        start = time.perf_counter()
        positions = on_corpus(found, self.corpus)  # (n, width) corpus index, -1: padding or not the corpus's
        n, width = positions.shape
        n_parents = len(self.parents.children)
        parent = np.where(positions >= 0, self.parents.parent_of[np.maximum(positions, 0)], -1)
        chosen = np.zeros(parent.shape, dtype=bool)
        held = parent >= 0
        if held.any():  # how many of each parent's chunks each list holds
            pair = np.flatnonzero(held) // width * n_parents + parent[held]
            _, inverse, counts = np.unique(pair, return_inverse=True, return_counts=True)
            chosen[held] = counts[inverse] >= self.threshold * self.parents.children[parent[held]]
        valid = found.indices >= 0
        key = np.where(chosen, parent, n_parents + np.where(valid, found.indices, 0))
        keep = first_in_row(np.where(valid, key, -1))
        table = UnitTable(found.chunks, self.documents)
        unit_of = np.full(n_parents + 1, -1, dtype=np.int64)
        returned = distinct(parent[keep & chosen])  # in parent order, as the units are added to the table
        unit_of[returned] = unit_indices(table, self.parents, returned, own=found.chunks is self.corpus.chunks)
        units = np.where(chosen, unit_of[parent], found.indices)
        indices, values = compact(units, found.scores, keep)
        merged = len(distinct(np.flatnonzero(chosen) // width * n_parents + parent[chosen])) if chosen.any() else 0
        details = {"units": int((unit_of >= 0).sum()), "merged_per_question": merged / max(n, 1)}
        stats = RetrievalStats(seconds=time.perf_counter() - start, details=details)
        return Candidates(table.chunks(), indices, values, stats)


def build(cfg: MergeConfig, resources: Resources) -> MergeExpander:
    documents = {d.id: d for d in resources.dataset.documents}
    return MergeExpander(hierarchy(cfg, resources), cfg.threshold, resources.corpus, documents)
