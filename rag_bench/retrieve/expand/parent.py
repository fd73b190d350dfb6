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
from rag_bench.retrieve.expand.base import STAGE, ExpandConfig, hierarchy
from rag_bench.retrieve.expand.levels import Hierarchy, LevelSettings, assign
from rag_bench.retrieve.resources import Resources
from rag_bench.retrieve.steps import UnitTable, pack


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
        own = found.chunks is self.corpus.chunks
        parent_of = self.parents.parent_of if own else assign(found.chunks, self.parents.parents).parent_of
        table = UnitTable(found.chunks, self.documents)
        unit_of: dict[int, int] = {}  # parent -> its table index
        rows, scores, kept = [], [], 0
        for indices, values in zip(found.indices.tolist(), found.scores.tolist(), strict=True):
            row, row_scores, seen = [], [], set()
            for c, score in zip(indices, values, strict=True):
                if c < 0:
                    continue
                p = int(parent_of[c])
                if p < 0:
                    unit, kept = c, kept + 1
                elif p in unit_of:
                    unit = unit_of[p]
                else:
                    parent = self.parents.parents[p]
                    unit = unit_of[p] = table.index(parent.doc_id, parent.start, parent.end)
                if unit not in seen:
                    seen.add(unit)
                    row.append(unit)
                    row_scores.append(score)
            rows.append(row)
            scores.append(row_scores)
        indices, values = pack(rows, scores, found.indices.shape[1])
        lengths = [len(r) for r in rows]
        details = {
            "units": len(unit_of),
            "mean_list_length": float(np.mean(lengths)) if lengths else 0.0,
            "kept_as_searched": kept,
        }
        stats = RetrievalStats(seconds=time.perf_counter() - start, details=details)
        return Candidates(table.chunks(), indices, values, stats)


def build(cfg: ParentConfig, resources: Resources) -> ParentExpander:
    documents = {d.id: d for d in resources.dataset.documents}
    return ParentExpander(hierarchy(cfg, resources), resources.corpus, documents)
