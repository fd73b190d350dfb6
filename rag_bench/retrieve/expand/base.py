"""What every expansion shares: its settings base, the option that expands nothing, the corpus's parents."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from omegaconf import MISSING

from rag_bench.core.cache import digest
from rag_bench.retrieve.base import Candidates, Corpus
from rag_bench.retrieve.expand.levels import Hierarchy, LevelSettings, assign_units
from rag_bench.retrieve.expand.sections import level_units
from rag_bench.retrieve.resources import Resources
from rag_bench.retrieve.steps import UnitTable

STAGE = "expanded"  # the expanded list's name among the run's stages


@dataclass
class ExpandConfig:
    """Every expansion: its name (``expand=<name>``)."""

    name: str = MISSING


@dataclass
class NoExpandConfig(ExpandConfig):
    """Return the chunks that were searched."""

    name: str = "none"


def hierarchy(cfg: LevelSettings, resources: Resources) -> Hierarchy:
    """The corpus chunks' parents at ``cfg``'s level, built once per corpus and level in a process."""
    level = {k: v for k, v in asdict(cfg).items() if k in ("level", "heading_depth", "size")}
    corpus = resources.corpus

    def build() -> Hierarchy:
        units = level_units(cfg.level, cfg.heading_depth, resources.dataset.documents, resources.rechunk, cfg.size)
        return assign_units(corpus.chunks, units)

    return resources.workspace.remember("parents", digest(corpus.key, level), build)


def on_corpus(found: Candidates, corpus: Corpus) -> np.ndarray:
    """(n, width) corpus index of each candidate (-1: padding, or a chunk the corpus does not hold)."""
    if found.chunks is corpus.chunks:
        return found.indices
    at = {c.id: i for i, c in enumerate(corpus.chunks)}
    table = np.array([at.get(c.id, -1) for c in found.chunks] + [-1], dtype=np.int64)  # last slot: padding
    return table[found.indices]


def unit_indices(table: UnitTable, tree: Hierarchy, chosen: np.ndarray, own: bool) -> np.ndarray:
    """The table index of each unit ``chosen`` (added to ``table`` in this order where it holds no such span);
    ``own``: the table's chunks are the ones ``tree`` assigned (their spans are matched as arrays)."""
    units, chunks = tree.units, tree.chunks
    base = (chunks.doc, chunks.start, chunks.end) if own and chunks is not None else None
    return table.index_spans(units.doc_ids, units.doc[chosen], units.start[chosen], units.end[chosen], base)
