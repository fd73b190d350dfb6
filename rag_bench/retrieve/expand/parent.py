"""``expand=parent``: search small chunks, return the parent each belongs to (its section, document or parent
chunk: ``levels.py``), each parent once, where its best-ranked child ranked, with that child's score.

Example: children ranked [a1, b1, a2] with parents A, B, A return [A, B]. A candidate with no parent
(a chunk no unit of its document overlaps) is returned as it is. Lists of a retriever's own chunks
(not the corpus's) find their parents by offsets. Chen et al., "Dense X Retrieval", 2023, and
LangChain's ParentDocumentRetriever describe the pattern (index small, return the larger unit).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from rag_bench.retrieve.base import Candidates, Corpus, RetrievalStats
from rag_bench.retrieve.expand.base import STAGE, ExpandConfig, hierarchy, unit_indices
from rag_bench.retrieve.expand.levels import Hierarchy, LevelSettings, assign_units
from rag_bench.retrieve.resources import Resources
from rag_bench.retrieve.steps import UnitTable, compact, distinct, first_in_row


@dataclass
class ParentConfig(LevelSettings, ExpandConfig):
    name: str = "parent"

    def __post_init__(self) -> None:
        self.check_level()


class ParentExpander:
    """Each candidate replaced by its parent unit, parents deduplicated in rank order."""

    stage = STAGE

    def __init__(self, parents: Hierarchy, corpus: Corpus, documents: dict) -> None:
        self.parents, self.corpus, self.documents = parents, corpus, documents

    def apply(self, found: Candidates) -> Candidates:
        start = time.perf_counter()
        tree = self.parents if found.chunks is self.corpus.chunks else assign_units(found.chunks, self.parents.units)
        parent_of = tree.parent_of
        n_parents = len(self.parents.children)
        valid = found.indices >= 0
        chunk = np.where(valid, found.indices, 0)
        parent = np.where(valid, parent_of[chunk], -1)  # (n, width) each candidate's parent, -1: none
        key = np.where(parent >= 0, parent, n_parents + chunk)  # a parent, or the chunk itself
        keep = first_in_row(np.where(valid, key, -1))
        table = UnitTable(found.chunks, self.documents)
        unit_of = np.full(n_parents + 1, -1, dtype=np.int64)  # parent -> its table index (last slot: none)
        returned = distinct(parent[keep & (parent >= 0)])  # in parent order, as the units are added to the table
        unit_of[returned] = unit_indices(table, tree, returned, own=True)
        units = np.where(parent >= 0, unit_of[parent], found.indices)
        indices, values = compact(units, found.scores, keep)
        details = {
            "units": int((unit_of >= 0).sum()),
            "mean_list_length": float(keep.sum(axis=1).mean()) if len(keep) else 0.0,
            "kept_as_searched": int((keep & (parent < 0)).sum()),
        }
        stats = RetrievalStats(seconds=time.perf_counter() - start, details=details)
        return Candidates(table.chunks(), indices, values, stats)


def build(cfg: ParentConfig, resources: Resources) -> ParentExpander:
    documents = {d.id: d for d in resources.dataset.documents}
    return ParentExpander(hierarchy(cfg, resources), resources.corpus, documents)
