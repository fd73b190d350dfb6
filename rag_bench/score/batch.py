"""Every span question's evidence matches and its ``SpanColumns`` at each cut-off and budget at once, in numpy.

The same integers and floats as ``relevance.touching``, ``spans.span_views`` and ``budget.budget_views``
question by question (tests/score/test_batch.py checks them on random rankings, spans and chunkings):
character counts are unions of intervals measured in integers, the relevance rule is checked in integers
(``relevance.hits``), and ``dcg`` sums the same discounts in rank order (a running sum that adds 0.0 at every
rank without a gain, which leaves every partial sum as it was). ``span_batch`` returns None where that
exactness is not assured (a coordinate or product past 2**62, an empty chunk or span, a ranking with a pad
before a chunk); the caller then scores question by question.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter

import numpy as np
import pandas as pd

from rag_bench.core.types import Chunk, Question
from rag_bench.score.relevance import tau_ratio
from rag_bench.score.spans import ideal_dcg, rank_discounts
from rag_bench.score.views import SpanColumns

LIMIT = 2**62  # every composite coordinate and every product of the relevance rule stays below this
NONE = 2**40  # the rank of a chunk a list does not hold


@dataclass(frozen=True)
class SpanBatch:
    """The span questions' evidence matches and metric inputs (rows in the order of the questions given)."""

    touching: list[dict[int, frozenset[int]]]  # as ``relevance.touching``, one per question
    at_k: list[SpanColumns]  # per cut-off (ascending): every question's ``span_views`` at it, as columns
    budgets: list[SpanColumns]  # per budget (ascending, each once): every question's ``budget_views``
    first_hit: list[int | None]  # rank (from 1) of the first chunk hitting a span, anywhere in the list
    chars: np.ndarray  # (n,) int64: source characters of each question's whole list


def span_batch(
    chunks: Sequence[Chunk],
    questions: Sequence[Question],
    ranked: np.ndarray,
    ks: Sequence[int],
    budgets: Sequence[int],
    tau: float,
) -> SpanBatch | None:
    """``SpanBatch`` of ``questions`` (each with evidence) and their rows of ``ranked`` ((n, width), -1 pads
    trailing each row's chunks), or None where the arithmetic is not sure to be exact (see the module)."""
    m, width = ranked.shape
    n_chunks = len(chunks)
    cdoc_ids = list(map(attrgetter("doc_id"), chunks))
    cstart = np.fromiter(map(attrgetter("start"), chunks), np.int64, n_chunks)
    cend = np.fromiter(map(attrgetter("end"), chunks), np.int64, n_chunks)
    spans = [(j, s, x.doc_id, x.start, x.end) for j, one in enumerate(questions) for s, x in enumerate(one.spans)]
    sj, ss, sdoc_ids, s0, s1 = (list(x) for x in zip(*spans, strict=True)) if spans else ([], [], [], [], [])
    sj, ss, s0, s1 = (np.array(x, dtype=np.int64) for x in (sj, ss, s0, s1))
    # document codes: the chunks' documents by first appearance, then those only a span names
    codes = pd.Index(pd.unique(pd.Index(cdoc_ids + sdoc_ids, dtype=object))) if cdoc_ids or sdoc_ids else pd.Index([])
    cdoc = codes.get_indexer(cdoc_ids).astype(np.int64)
    sdoc = codes.get_indexer(sdoc_ids).astype(np.int64)
    p, q = tau_ratio(tau)
    clen, slen = cend - cstart, s1 - s0
    top = max(int(cend.max(initial=0)), int(s1.max(initial=0)))
    longest = int(clen.max(initial=0))
    base = top + longest + 2  # a span's candidates lie within one document's stretch of the composite keys
    valid = ranked >= 0
    trailing = np.array_equal(valid, np.arange(width) < valid.sum(axis=1)[:, None])
    if not width or not trailing or not _exact(cstart, clen, s0, slen, (p, q, top, base, m, n_chunks, len(codes))):
        return None
    # candidates of each span: chunks of its document starting in (start - longest, end), then ending past start
    order = np.lexsort((np.arange(n_chunks), cend, cstart, cdoc))
    keys = cdoc[order] * base + cstart[order]
    lo = np.searchsorted(keys, sdoc * base + s0 - longest, side="right")
    hi = np.searchsorted(keys, sdoc * base + s1, side="left")
    counts = np.maximum(hi - lo, 0)
    owner = np.repeat(np.arange(len(s0)), counts)
    pc = order[np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts - lo, counts)]
    keep = cend[pc] > s0[owner]
    owner, pc = owner[keep], pc[keep]
    if (len(pc) + len(s0) + 2) * base >= LIMIT or (len(pc) + m + 1) * (len(s0) + 1) >= LIMIT:
        return None
    shared = np.minimum(cend[pc], s1[owner]) - np.maximum(cstart[pc], s0[owner])
    hit = (shared >= 1) & (shared * q >= p * np.minimum(clen[pc], slen[owner]))
    pj, ps = sj[owner], ss[owner]
    touching = _touching(m, pj.tolist(), pc.tolist(), ps.tolist(), hit.tolist())
    # each (question, touching chunk) once: t; its first rank in the question's list (NONE where absent)
    tkeys, pt = np.unique(pj * (n_chunks + 1) + pc, return_inverse=True)
    tj, tc = tkeys // (n_chunks + 1), tkeys % (n_chunks + 1)
    same = ranked[tj] == tc[:, None]
    rank = np.where(same.any(axis=1), same.argmax(axis=1), NONE)
    # each (question, span) hit: the first rank hitting it
    hkey, hrank = pj[hit] * (len(s0) + 1) + ps[hit], rank[pt[hit]]
    first = np.lexsort((hrank, hkey))
    firsts = first[np.r_[True, hkey[first][1:] != hkey[first][:-1]]] if len(first) else first
    uj, urank = pj[hit][firsts], hrank[firsts]
    ranked_hit = urank < NONE
    best = np.full(m, NONE, dtype=np.int64)
    np.minimum.at(best, uj, urank)
    first_hit = np.where(best < NONE, best + 1, np.inf)
    gains = np.zeros((m, width))
    discounts = np.array(rank_discounts(width)[:width], dtype=np.float64)
    gains[uj[ranked_hit], urank[ranked_hit]] = discounts[urank[ranked_hit]]
    dcg = np.cumsum(gains, axis=1)
    # evidence: each question's spans merged per document into disjoint segments
    seg, es, ee, ej = _segments(sj * len(codes) + sdoc, s0, s1, sj, base)
    lost = np.array([sum(len(x) for x in question.lost) for question in questions], dtype=np.int64)
    evidence = _sum(ej, ee - es, m) + lost
    n_spans = np.array([len(question.spans) + len(question.lost) for question in questions], dtype=np.int64)
    # pieces: a touching chunk cut to one evidence segment, sorted by segment and start
    pkeys = np.unique(pt * (len(es) + 1) + seg[owner])
    ptt, pe = pkeys // (len(es) + 1), pkeys % (len(es) + 1)
    pstart, pend = np.maximum(cstart[tc[ptt]], es[pe]), np.minimum(cend[tc[ptt]], ee[pe])
    sort = np.lexsort((pstart, pe))
    ptt, pe, pstart, pend = ptt[sort], pe[sort], pstart[sort], pend[sort]
    prank = rank[ptt]
    covered_all = _measure(pe * base + pstart, pe * base + pend, ej[pe], m)
    _, tstart, tend, tjj = _segments(tj * len(codes) + cdoc[tc], cstart[tc], cend[tc], tj, base)
    touched = _sum(tjj, tend - tstart, m)
    lengths = np.where(valid, clen[np.maximum(ranked, 0)], 0) if n_chunks else np.zeros((m, width), np.int64)
    running = np.cumsum(lengths, axis=1)
    total = running[:, -1]
    ideal = np.array([ideal_dcg(i) for i in range(max(ks) + 1)], dtype=np.float64)  # IDCG of i unit gains
    at_k = []
    for k in sorted(ks):
        upto = min(k, width) - 1
        inside = prank < k
        at_k.append(
            SpanColumns(
                np.full(m, k, dtype=np.int64),
                n_spans,
                np.bincount(uj[urank < k], minlength=m).astype(np.int64),
                first_hit,
                dcg[:, upto].copy(),
                ideal[np.minimum(k, n_spans)],
                evidence,
                _measure(pe[inside] * base + pstart[inside], pe[inside] * base + pend[inside], ej[pe[inside]], m),
                running[:, upto].copy(),
                covered_all,
                touched,
                lost,
            )
        )
    before = running - lengths
    budgeted = []
    for budget in sorted(set(budgets)):
        taken = valid & (before < budget)
        take = np.minimum(lengths, budget - before)
        # the first rank of a chunk decides: a later copy of it is left out, or holds no more than the first
        prow = np.minimum(prank, width - 1)
        pin = (prank < NONE) & taken[ej[pe], prow]
        cut_end = np.minimum(cstart[tc[ptt]] + take[ej[pe], prow], pend)
        row = np.minimum(rank[pt], width - 1)
        hin = (rank[pt] < NONE) & taken[pj, row]
        got = take[pj, row]
        cut = np.minimum(cstart[pc] + got, s1[owner]) - np.maximum(cstart[pc], s0[owner])
        hits = hin & (cut >= 1) & (cut * q >= p * np.minimum(got, slen[owner]))
        spans_hit = np.unique(pj[hits] * (len(s0) + 1) + ps[hits]) // (len(s0) + 1)
        budgeted.append(
            SpanColumns(
                taken.sum(axis=1).astype(np.int64),
                n_spans,
                np.bincount(spans_hit, minlength=m).astype(np.int64),
                np.full(m, np.inf),
                np.zeros(m),
                np.ones(m),
                evidence,
                _measure(pe[pin] * base + pstart[pin], pe[pin] * base + cut_end[pin], ej[pe[pin]], m),
                np.minimum(total, budget),
                np.zeros(m, np.int64),
                np.zeros(m, np.int64),
                lost,
            )
        )
    first_rank = [None if r >= NONE else r + 1 for r in best.tolist()]
    return SpanBatch(touching, at_k, budgeted, first_rank, total)


def _exact(cstart, clen, s0, slen, sizes: tuple[int, ...]) -> bool:
    """Whether the integer arithmetic stays exact and below ``LIMIT`` (and no chunk or span is empty)."""
    p, q, top, base, m, n_chunks, n_docs = sizes
    if (len(cstart) and (cstart.min() < 0 or clen.min() <= 0)) or (len(s0) and (s0.min() < 0 or slen.min() <= 0)):
        return False
    return max(p, q) * max(top, 1) < LIMIT and (m + 1) * (n_chunks + 1) < LIMIT and (m + 1) * (n_docs + 1) < LIMIT


def _touching(m: int, pj: list, pc: list, ps: list, hit: list) -> list[dict[int, frozenset[int]]]:
    """Each question's chunk -> spans it hits, keys in ``relevance.touching``'s order (pairs come span by span,
    each span's chunks by start)."""
    found: list[dict[int, set[int]]] = [{} for _ in range(m)]
    for j, c, s, h in zip(pj, pc, ps, hit, strict=True):
        near = found[j]
        spans = near.get(c)
        if spans is None:
            near[c] = spans = set()
        if h:
            spans.add(s)
    return [{c: frozenset(s) for c, s in near.items()} for near in found]


def _segments(group: np.ndarray, start: np.ndarray, end: np.ndarray, row: np.ndarray, base: int) -> tuple:
    """Intervals merged within each ``group`` (``spans.union``): each interval's segment (in the order
    given), and each segment's start, end and row."""
    if not len(start):
        empty = np.zeros(0, np.int64)
        return empty, empty, empty, empty
    order = np.lexsort((end, start, group))
    g = np.r_[0, np.cumsum(group[order][1:] != group[order][:-1])]
    lo, hi = g * base + start[order], g * base + end[order]
    reach = np.maximum.accumulate(hi)
    new = np.r_[True, lo[1:] > reach[:-1]]
    ids = np.cumsum(new) - 1
    seg = np.empty(len(start), np.int64)
    seg[order] = ids
    heads = np.flatnonzero(new)
    ends = np.maximum.reduceat(hi, heads) - g[heads] * base
    return seg, start[order][heads], ends, row[order][heads]


def _measure(lo: np.ndarray, hi: np.ndarray, row: np.ndarray, m: int) -> np.ndarray:
    """(m,) int64: characters in the union of intervals [lo, hi) of each row (sorted by ``lo``; intervals of
    different rows never overlap: composite coordinates), empty intervals counting nothing."""
    if not len(lo):
        return np.zeros(m, np.int64)
    reach = np.r_[lo[0], np.maximum.accumulate(hi)[:-1]]
    return _sum(row, np.maximum(hi - np.maximum(lo, reach), 0), m)


def _sum(row: np.ndarray, values: np.ndarray, m: int) -> np.ndarray:
    """(m,) int64 sums of integer ``values`` by ``row``."""
    out = np.zeros(m, np.int64)
    np.add.at(out, row, values)
    return out
