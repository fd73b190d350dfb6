"""Throughput a run measured on this machine, kept in the cache for the plans of later runs (``plan.py``).

Each run adds what it did to three running sums, one cache entry each (namespace ``throughput``): texts
embedded by an embedder and the seconds its embedding steps took (its vectors' cache name), question-passage
pairs reranked by a reranker and the rerank stage's seconds (its name), and the points run on a dataset and
the seconds of everything else (load, chunk, index, search, score). A plan's time is

    seconds = texts / (texts/s of the embedder) + pairs / (pairs/s of the reranker) + mean other seconds per point

each term from the sums, or unknown when no run on this cache has measured it yet.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from rag_bench.core.cache import DiskCache, digest

NAMESPACE = "throughput"


@dataclass(frozen=True)
class Measured:
    """A running sum: ``work`` units (texts, pairs, points) done in ``seconds``."""

    work: float
    seconds: float

    def time_for(self, work: float) -> float:
        """Seconds for ``work`` units at the measured rate (0 for no work)."""
        return 0.0 if work <= 0 else work * self.seconds / self.work


def _key(kind: str, name: str) -> str:
    return digest(NAMESPACE, kind, name)


def measured(cache: DiskCache, kind: str, name: str) -> Measured | None:
    """The sums of ``kind`` ("embed", "rerank", "other") for ``name``; None when nothing was measured."""
    payload = cache.get(NAMESPACE, _key(kind, name))
    if payload is None:
        return None
    try:
        found = json.loads(payload)
        work, seconds = float(found["work"]), float(found["seconds"])
    except (ValueError, KeyError, TypeError):
        return None
    return Measured(work, seconds) if work > 0 and seconds >= 0 else None


def add(cache: DiskCache, kind: str, name: str, work: float, seconds: float) -> None:
    """Add ``work`` units done in ``seconds`` to the sums of (``kind``, ``name``); nothing for no work."""
    if work <= 0 or seconds < 0:
        return
    before = measured(cache, kind, name) or Measured(0.0, 0.0)
    record = {"kind": kind, "name": name, "work": before.work + work, "seconds": before.seconds + seconds}
    cache.put(NAMESPACE, _key(kind, name), json.dumps(record).encode(), durable=False)  # torn: the sums start afresh


def record_run(cache: DiskCache, names: dict[str, str], work: dict[str, float], seconds: dict[str, float]) -> None:
    """Add one run's measurements: ``names``, ``work`` and ``seconds`` by kind ("embed", "rerank", "other")."""
    for kind, name in names.items():
        add(cache, kind, name, work.get(kind, 0.0), seconds.get(kind, 0.0))
