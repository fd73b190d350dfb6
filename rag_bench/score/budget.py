"""Budgeted metrics: the ranked list cut by a character budget instead of a count (DESIGN section 3).

With chunks c_1, c_2, ... best first and a budget of B characters, the context holds the
chunks in rank order until B characters are spent; the chunk that crosses the budget is cut
to its first B - (characters before it) characters and later chunks are left out. On that
context, with S the spans and E the union of evidence characters:
  hit@Bchars       1 if a context chunk hits a span (the tau rule, on the cut chunk's length)
  recall@Bchars    |spans hit by the context| / |S|
  coverage@Bchars  |E & context characters| / |E|
Only source characters spend the budget (prefixes never count, as in every character
metric). Example: at B = 1000 a run of 2000-character chunks gets half of its top chunk
as context, and a run of 250-character chunks gets its top four.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rag_bench.core.types import Chunk, Lost, Span
from rag_bench.score.metrics import Family, budget_families
from rag_bench.score.relevance import tau_ratio
from rag_bench.score.spans import Interval, intersection_size, size, union
from rag_bench.score.views import SpanColumns, SpanView, span_columns


def budget_context(ranked: Sequence[int], chunks: Sequence[Chunk], budget: int) -> list[Chunk]:
    """The chunks that fill ``budget`` characters in rank order, the last one cut to fit."""
    return [chunk for chunk, _ in _filled(ranked, chunks, budget)]


def _filled(ranked: Sequence[int], chunks: Sequence[Chunk], budget: int) -> list[tuple[Chunk, int]]:
    """(chunk, characters taken) of each chunk filling ``budget`` characters: the last one cut to fit, as a
    Chunk of its first characters."""
    context: list[tuple[Chunk, int]] = []
    left = budget
    for c in ranked:
        if left <= 0:
            break
        chunk = chunks[c]
        length = chunk.end - chunk.start
        take = min(length, left)
        context.append((chunk if take == length else Chunk(chunk.doc_id, chunk.start, chunk.start + take, ""), take))
        left -= take
    return context


def budget_metrics(
    ranked: Sequence[int],
    chunks: Sequence[Chunk],
    spans: Sequence[Span],
    budgets: Sequence[int],
    tau: float,
    lost: Sequence[Lost] = (),
) -> dict[str, float]:
    """Every budgeted metric of the metric table for one question's ranking (chunk indices, best first);
    evidence the parse lost (``lost``) counts in |S| and |E| and is never hit."""
    views = budget_views(ranked, chunks, spans, budgets, tau, lost)
    columns = _columns(tuple(sorted(set(budgets))), tuple(budget_families()))
    return {name: family.span(view) for view, (_, names) in zip(views, columns, strict=True) for name, family in names}


def budget_table(views: Sequence[Sequence[SpanView]], budgets: Sequence[int]) -> dict[str, np.ndarray]:
    """``budget_metrics``' values of many questions (``views``: each question's ``budget_views``) as columns:
    metric name -> (n_questions,) float64, each family's ``spans`` on every question at once (``span`` view
    by view for a family without it), the same values to the bit."""
    if not views:
        return {}
    out = {}
    cut = zip(*views, strict=True)  # per budget, every question's view
    for at, (_, names) in zip(cut, _columns(tuple(sorted(set(budgets))), tuple(budget_families())), strict=True):
        columns = span_columns(at)
        for name, family in names:
            values = family.spans(columns) if family.spans is not None else [family.span(v) for v in at]
            out[name] = np.asarray(values, dtype=np.float64)
    return out


def budget_table_of(at_budget: Sequence[SpanColumns], budgets: Sequence[int]) -> dict[str, np.ndarray]:
    """``budget_table`` from the views as columns, one ``SpanColumns`` per budget in ``sorted(set(budgets))``
    (``batch.span_batch``): each family's ``spans`` on every question at once (every family has one:
    ``metrics.columnar``)."""
    out = {}
    columns = _columns(tuple(sorted(set(budgets))), tuple(budget_families()))
    for at, (_, names) in zip(at_budget, columns, strict=True):
        out.update({name: np.asarray(family.spans(at), dtype=np.float64) for name, family in names})
    return out


def budget_views(
    ranked: Sequence[int],
    chunks: Sequence[Chunk],
    spans: Sequence[Span],
    budgets: Sequence[int],
    tau: float,
    lost: Sequence[Lost] = (),
) -> list[SpanView]:
    """One ``SpanView`` per budget (ascending, each once) of the context that budget cuts from one question's
    ranking: ``k`` its chunks, ``lengths`` its characters (``first_hit``, ``dcg`` and ``idcg`` unused)."""
    evidence = union([(s.doc_id, s.start, s.end) for s in spans])
    lost_chars = sum(len(x) for x in lost)
    evidence_chars, n_spans = size(evidence) + lost_chars, len(spans) + len(lost)
    docs = {s.doc_id for s in spans}  # only a chunk of an evidence document can hit a span or cover evidence
    p, q = tau_ratio(tau)  # the relevance rule in integers, as ``relevance.hits``
    evidence_spans = [(s.doc_id, s.start, s.end) for s in spans]
    out: list[SpanView] = []
    for budget in sorted(set(budgets)):
        # the context as ``_filled`` cuts it, its chunks as (doc, start, end): the cut one ends early
        near: list[Interval] = []  # context chunks in an evidence document
        left, n = budget, 0
        for c in ranked:
            if left <= 0:
                break
            chunk = chunks[c]
            take = min(chunk.end - chunk.start, left)
            if chunk.doc_id in docs:
                near.append((chunk.doc_id, chunk.start, chunk.start + take))
            left, n = left - take, n + 1
        hit_spans = frozenset(
            i
            for i, (doc, start, end) in enumerate(evidence_spans)
            if any(_hits(chunk, doc, start, end, p, q) for chunk in near)
        )
        out.append(
            SpanView(
                k=n,
                n_spans=n_spans,
                hit_spans=hit_spans,
                first_hit=None,  # rank metrics are not budgeted
                dcg=0.0,
                idcg=1.0,
                evidence_chars=evidence_chars,
                covered=intersection_size(evidence, union(near)) if near else 0,
                lengths=budget - left,  # the characters the context took
                lost_chars=lost_chars,
            )
        )
    return out


def _hits(chunk: Interval, doc: str, start: int, end: int, p: int, q: int) -> bool:
    """``relevance.hits`` of a chunk (doc, start, end) and a span, tau = p/q: the same integers."""
    shared = min(chunk[2], end) - max(chunk[1], start) if chunk[0] == doc else 0
    return shared >= 1 and shared * q >= p * min(chunk[2] - chunk[1], end - start)


_COLUMNS: dict[tuple, list[tuple[int, list[tuple[str, Family]]]]] = {}  # by budgets and the families' identities


def _columns(budgets: tuple[int, ...], families: tuple[Family, ...]) -> list[tuple[int, list[tuple[str, Family]]]]:
    """Each budget with the (metric name, family) of its values, made once (families told apart by identity,
    as in ``spans._columns``)."""
    key = (budgets, *map(id, families))
    if key not in _COLUMNS:
        _COLUMNS[key] = [(b, [(f"{family.name}@{b}chars", family) for family in families]) for b in budgets]
    return _COLUMNS[key]
