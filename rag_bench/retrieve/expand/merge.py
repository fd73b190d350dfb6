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
from collections import Counter
from dataclasses import dataclass

from rag_bench.core.errors import ConfigError
from rag_bench.retrieve.base import Candidates, Corpus, RetrievalStats
from rag_bench.retrieve.expand.base import STAGE, ExpandConfig, hierarchy, on_corpus
from rag_bench.retrieve.expand.levels import Hierarchy, LevelSettings
from rag_bench.retrieve.resources import Resources
from rag_bench.retrieve.steps import UnitTable, pack


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
        positions = on_corpus(found, self.corpus).tolist()
        parent_of, children = self.parents.parent_of.tolist(), self.parents.children
        table = UnitTable(found.chunks, self.documents)
        rows, scores, merged = [], [], 0
        for q, (indices, values) in enumerate(zip(found.indices.tolist(), found.scores.tolist(), strict=True)):
            parent = [parent_of[at] if at >= 0 else -1 for at in positions[q]]
            counts = Counter(p for p, c in zip(parent, indices, strict=True) if p >= 0 and c >= 0)
            chosen = {p for p, n in counts.items() if n >= self.threshold * children[p]}
            merged += len(chosen)
            row, row_scores, seen = [], [], set()
            for c, p, score in zip(indices, parent, values, strict=True):
                if c < 0:
                    continue
                unit = c
                if p in chosen:
                    u = self.parents.parents[p]
                    unit = table.index(u.doc_id, u.start, u.end)
                if unit not in seen:
                    seen.add(unit)
                    row.append(unit)
                    row_scores.append(score)
            rows.append(row)
            scores.append(row_scores)
        indices, values = pack(rows, scores, found.indices.shape[1])
        n = max(len(rows), 1)
        details = {"units": len(table.added), "merged_per_question": merged / n}
        return Candidates(
            table.chunks(), indices, values, RetrievalStats(seconds=time.perf_counter() - start, details=details)
        )


def build(cfg: MergeConfig, resources: Resources) -> MergeExpander:
    documents = {d.id: d for d in resources.dataset.documents}
    return MergeExpander(hierarchy(cfg, resources), cfg.threshold, resources.corpus, documents)
