"""Metrics of one ranked chunk list against evidence spans (DESIGN section 3).

With ``hits[r]`` the spans hit by the chunk at rank r (from 1) and S the spans:
  hit@k      1 if any of the top k hits a span
  recall@k   |union of hits[1..k]| / |S|
  mrr@k      1 / (first rank r <= k with hits[r] non-empty), else 0
  ndcg@k     DCG / IDCG, gain 1 at rank r when hits[r] holds a span no higher rank
             hit (no credit for redundant chunks), discount log2(r + 1),
             IDCG = min(k, |S|) unit gains at the top
Character metrics, with E the union of evidence characters and C_k the union of the
top-k chunks' characters (prefixes never count):
  coverage@k        |E & C_k| / |E|
  char_precision@k  |E & C_k| / sum of the top-k chunk lengths
  iou@k             |E & C_k| / (sum of the top-k chunk lengths + |E - C_k|)
  precision_omega   |E & T| / |T|, T the union of every chunk touching a span
Evidence the parse lost (excerpts it could not locate, ``Question.lost``) counts in |S| and, with the
excerpt's length, in |E|, and is never hit or covered: a parser that drops evidence loses recall.
  survival          (|E| - lost characters) / |E|: the share of evidence characters the parse kept
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import accumulate

import numpy as np

from rag_bench.core.types import Chunk, Lost, Span
from rag_bench.score.metrics import Family, span_families, whole_families
from rag_bench.score.views import SpanColumns, SpanView, span_columns

Interval = tuple[str, int, int]  # (doc_id, start, end)


def union(intervals: Sequence[Interval]) -> list[Interval]:
    """Sorted, disjoint intervals covering the same characters."""
    merged: list[Interval] = []
    for doc, start, end in sorted(intervals):
        if merged and merged[-1][0] == doc and start <= merged[-1][2]:
            merged[-1] = (doc, merged[-1][1], max(merged[-1][2], end))
        else:
            merged.append((doc, start, end))
    return merged


def size(intervals: Sequence[Interval]) -> int:
    return sum(end - start for _, start, end in intervals)


def intersection_size(a: Sequence[Interval], b: Sequence[Interval]) -> int:
    """Characters in both unions ``a`` and ``b`` (each sorted and disjoint)."""
    total, i, j = 0, 0, 0
    while i < len(a) and j < len(b):
        (da, sa, ea), (db, sb, eb) = a[i], b[j]
        if (da, ea) <= (db, sb) or da < db:
            i += 1
            continue
        if (db, eb) <= (da, sa) or db < da:
            j += 1
            continue
        total += min(ea, eb) - max(sa, sb)
        if (da, ea) < (db, eb):
            i += 1
        else:
            j += 1
    return total


def span_metrics(
    ranked: Sequence[int],
    chunks: Sequence[Chunk],
    spans: Sequence[Span],
    touching: dict[int, frozenset[int]],
    ks: Sequence[int],
    lost: Sequence[Lost] = (),
    lengths: Sequence[int] | None = None,
) -> tuple[dict[str, float], int | None]:
    """Every span metric of the metric table for one question, and the rank of its first hit (None if none).

    ``ranked`` holds chunk indices best first; ``touching`` maps each chunk that
    overlaps evidence to the spans it hits (``relevance.touching``); ``lengths`` (optional) each chunk's
    ``len``, when the caller has them.
    """
    views = span_views(ranked, chunks, spans, touching, ks, lost, lengths)
    return span_values(views), views[-1].first_hit


def span_values(views: Sequence[SpanView]) -> dict[str, float]:
    """Metric name -> value of one question's ``span_views`` (every span family at each cut-off, then once)."""
    columns = _columns(tuple(view.k for view in views), tuple(span_families()), tuple(whole_families()))
    return {name: family.span(views[at]) for at, name, family in columns}


def span_table(views: Sequence[Sequence[SpanView]]) -> dict[str, np.ndarray]:
    """``span_metrics``' values of many questions (``views``: each question's ``span_views``, at the same
    cut-offs) as columns: metric name -> (n_questions,) float64, the same values to the bit, each family's
    ``spans`` applied to every question at once (its ``span`` to each view, for a family without one)."""
    if not views:
        return {}
    at_k = [span_columns(cut) for cut in zip(*views, strict=True)]  # per cut-off, every question's view
    out = {}
    for at, name, family in _columns(tuple(v.k for v in views[0]), tuple(span_families()), tuple(whole_families())):
        if family.spans is not None:
            out[name] = np.asarray(family.spans(at_k[at]), dtype=np.float64)
        else:
            out[name] = np.array([family.span(question[at]) for question in views], dtype=np.float64)
    return out


def span_table_of(at_k: Sequence[SpanColumns], ks: Sequence[int]) -> dict[str, np.ndarray]:
    """``span_table`` from the questions' views as columns, one ``SpanColumns`` per cut-off in ``sorted(ks)``
    (``batch.span_batch``): each family's ``spans`` applied to every question at once (every family has one:
    ``metrics.columnar``)."""
    if not at_k:
        return {}
    columns = _columns(tuple(sorted(ks)), tuple(span_families()), tuple(whole_families()))
    return {name: np.asarray(family.spans(at_k[at]), dtype=np.float64) for at, name, family in columns}


_COLUMNS: dict[tuple, list[tuple[int, str, Family]]] = {}  # by cut-offs and the families' identities


def _columns(ks: tuple[int, ...], at_k: tuple[Family, ...], whole: tuple[Family, ...]) -> list[tuple[int, str, Family]]:
    """(index of the view, metric name, family) of ``span_metrics``'s values, for views at cut-offs ``ks``
    (the metric table's families at each k, ``at_k``, then those measured once, ``whole``), made once (the
    families are told apart by identity: hashing them hashes their functions, and they are held here)."""
    key = (ks, *map(id, at_k), None, *map(id, whole))
    if key not in _COLUMNS:
        named = [(at, f"{family.name}@{k}", family) for at, k in enumerate(ks) for family in at_k]
        _COLUMNS[key] = named + [(len(ks) - 1, family.name, family) for family in whole]
    return _COLUMNS[key]


def span_views(
    ranked: Sequence[int],
    chunks: Sequence[Chunk],
    spans: Sequence[Span],
    touching: dict[int, frozenset[int]],
    ks: Sequence[int],
    lost: Sequence[Lost] = (),
    lengths: Sequence[int] | None = None,
) -> list[SpanView]:
    """One ``SpanView`` per cut-off in ``ks`` (ascending), for one question's ranking (``lengths``: as in
    ``span_metrics``)."""
    evidence = union([(s.doc_id, s.start, s.end) for s in spans])
    lost_chars = sum(len(x) for x in lost)
    evidence_chars, n_spans = size(evidence) + lost_chars, len(spans) + len(lost)
    # Only chunks touching evidence can hit a span or cover evidence characters: the ranks of those, and
    # the ranks (from 0) where a span no higher rank hit is hit (gain 1); every other rank gains 0.
    near_ranks = [(rank, c) for rank, c in enumerate(ranked, start=1) if c in touching]
    seen: set[int] = set()
    gain_at: list[int] = []
    first_hit = None
    for rank, c in near_ranks:
        hit = touching[c]
        if hit - seen:
            gain_at.append(rank - 1)
        seen |= hit
        if hit and first_hit is None:
            first_hit = rank
    # Chunk lengths enter as running sums. (Same values as summing over the whole top k.)
    head = list(ranked[: max(ks)])
    if lengths is None:
        running = list(accumulate(chunks[c].end - chunks[c].start for c in head))
    else:
        running = list(accumulate(map(lengths.__getitem__, head)))
    touched = union([(chunks[c].doc_id, chunks[c].start, chunks[c].end) for c in touching])
    touched_covered, touched_size = intersection_size(evidence, touched), size(touched)
    discount = rank_discounts(max(max(ks), len(ranked), n_spans))
    views = []
    covered, counted = 0, -1  # evidence characters the top k's touching chunks cover, for ``counted`` of them
    for k in sorted(ks):
        near = [c for rank, c in near_ranks if rank <= k]
        if len(near) != counted:
            covered = intersection_size(
                evidence, union([(chunks[c].doc_id, chunks[c].start, chunks[c].end) for c in near])
            )
            counted = len(near)
        views.append(
            SpanView(
                k=k,
                n_spans=n_spans,
                hit_spans=frozenset().union(*(touching[c] for c in near)),
                first_hit=first_hit,
                dcg=sum(discount[r] for r in gain_at if r < k),  # summed in rank order, as over every rank
                idcg=ideal_dcg(min(k, n_spans)),
                evidence_chars=evidence_chars,
                covered=covered,
                lengths=running[min(k, len(head)) - 1] if head else 0,
                touched_covered=touched_covered,
                touched=touched_size,
                lost_chars=lost_chars,
            )
        )
    return views


_DISCOUNTS: list[float] = []  # 1 / log2(r + 1) for r = 1, 2, ...: each computed once, summed as before


def rank_discounts(n: int) -> list[float]:
    """The first ``n`` rank discounts, ``[1 / log2(2), 1 / log2(3), ...]``."""
    while len(_DISCOUNTS) < n:
        _DISCOUNTS.append(1 / math.log2(len(_DISCOUNTS) + 2))
    return _DISCOUNTS


_IDEAL: dict[int, float] = {}  # m -> the sum of the first m discounts, summed as before


def ideal_dcg(m: int) -> float:
    """IDCG of ``m`` unit gains at the top: ``sum(rank_discounts(m)[:m])``, each sum made once."""
    if m not in _IDEAL:
        _IDEAL[m] = sum(rank_discounts(m)[:m])
    return _IDEAL[m]
