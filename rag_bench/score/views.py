"""What a metric function sees: one question's ranking at a cut-off (spans), or every judged question's (documents)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np


class SpanView(NamedTuple):
    """A span question's top k (or a budget-cut context), reduced to what every span metric needs.

    A named tuple, not a frozen dataclass: as immutable, and made three times faster (a frozen dataclass
    sets each of its 12 fields through ``object.__setattr__``), 80,000 of them at 10,000 questions."""

    k: int  # the cut-off (or the number of chunks in a budget-cut context)
    n_spans: int  # evidence spans, those the parse lost included
    hit_spans: frozenset[int]  # spans hit by the top k
    first_hit: int | None  # rank (from 1) of the first chunk hitting a span, anywhere in the list
    dcg: float  # sum over ranks r <= k with a new span hit of 1 / log2(r + 1)
    idcg: float  # the same for min(k, n_spans) hits at the top
    evidence_chars: int  # |E|, the union of evidence characters, plus the characters of lost excerpts
    covered: int  # |E & C_k|, evidence characters inside the top k's union
    lengths: int  # sum of the top k chunk lengths
    touched_covered: int = 0  # |E & T|, T the union of every chunk touching evidence
    touched: int = 0  # |T|
    lost_chars: int = 0  # characters of the excerpts the parse lost (part of evidence_chars, never covered)


class SpanColumns(NamedTuple):
    """Many span questions' ``SpanView`` at one cut-off, field by field: (n,) int64 arrays, but ``hits`` (the
    number of spans hit, ``len(hit_spans)``) and float64 ``first_hit`` (inf where no chunk hits), ``dcg`` and
    ``idcg``. What a family's ``spans`` function reads (``metrics.py``), the same fields as one view."""

    k: np.ndarray
    n_spans: np.ndarray
    hits: np.ndarray
    first_hit: np.ndarray
    dcg: np.ndarray
    idcg: np.ndarray
    evidence_chars: np.ndarray
    covered: np.ndarray
    lengths: np.ndarray
    touched_covered: np.ndarray
    touched: np.ndarray
    lost_chars: np.ndarray


def span_columns(views: Sequence[SpanView]) -> SpanColumns:
    """``views`` (one per question, each at the same cut-off) as columns."""
    k, n_spans, hit_spans, first_hit, dcg, idcg, *counts = (list(field) for field in zip(*views, strict=True))
    ints = [np.array(values, dtype=np.int64) for values in (k, n_spans, [len(h) for h in hit_spans])]
    first = np.array([np.inf if r is None else r for r in first_hit], dtype=np.float64)
    floats = [np.array(values, dtype=np.float64) for values in (dcg, idcg)]
    return SpanColumns(*ints, first, *floats, *(np.array(values, dtype=np.int64) for values in counts))


@dataclass(frozen=True)
class DocumentCounts:
    """Every judged question's document ranking at cut-off k, as (n_questions,) float64 arrays."""

    k: int
    hits: np.ndarray  # relevant documents in the top k
    n_relevant: np.ndarray  # R, relevant judged documents
    first: np.ndarray  # rank of the first relevant document (inf when none)
    dcg: np.ndarray  # sum over r <= k of grade / log2(r + 1)
    idcg: np.ndarray  # the same over the ideal ranking
    ap: np.ndarray  # sum over relevant r <= k of precision@r


@dataclass(frozen=True)
class FilterView:
    """A filtered question's top k: how many of its chunks the filter forbids, and its other metrics at k."""

    k: int
    n_top: int  # chunks in the top k (fewer than k when the list is shorter)
    forbidden: int  # of those, chunks whose document the question's filter forbids
    measured: dict[str, float]  # the question's span or document metrics at this k, by family (recall, ndcg ...)
