"""The metric table: every metric family once, with where it is measured and the function that measures it.

A family is measured on span questions (``span``: a function of one question's ``SpanView``),
on questions with document judgements (``document``: a function of every judged question's
``DocumentCounts``, vectorised), on questions that carry a metadata filter (``filtered``: a
function of one question's ``FilterView``), on contexts cut by a character budget (``budget``:
the span function on the cut context), at each cut-off k or once per question (``at_k``).
``higher_is_better`` is False for metrics a gate holds down (``leak@k``); ``unlabelled`` is True for
filter metrics that need no labels, so they average over every question that carries a filter,
labelled or not (an access-control probe has no evidence, and still leaks). ``spans`` (optional) is
``span`` over every span question at once (``SpanColumns``: each field an array), the same values to the bit;
the evaluation measures every span question view by view (``span``) when a family lacks it. Adding a metric
is one entry here; a metric name that no entry measures is an error (``score/names.py``).
Definitions: DESIGN section 3 and the docstrings of ``spans.py``, ``budget.py`` and ``documents.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from rag_bench.score.views import DocumentCounts, FilterView, SpanColumns, SpanView


@dataclass(frozen=True)
class Family:
    name: str
    span: Callable[[SpanView], float] | None = None
    # optional: ``span`` of many questions at once (``SpanColumns``), the same values to the bit
    spans: Callable[[SpanColumns], np.ndarray] | None = None
    document: Callable[[DocumentCounts], np.ndarray] | None = None
    budget: bool = False  # also measured at budgets of N characters (``recall@2000chars``)
    at_k: bool = True  # False: measured once per question (no cut-off in its name)
    filtered: Callable[[FilterView], float] | None = None
    higher_is_better: bool = True
    unlabelled: bool = False  # also measured on filtered questions without labels


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


# Report order: rank metrics, character metrics, document-only metrics, then the once-per-question ones.
FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family(
            "hit",
            span=lambda v: float(bool(v.hit_spans)),
            spans=lambda c: (c.hits > 0).astype(np.float64),
            document=lambda d: (d.hits > 0).astype(np.float64),
            budget=True,
        ),
        Family(
            "recall",
            span=lambda v: len(v.hit_spans) / v.n_spans,
            spans=lambda c: c.hits / c.n_spans,
            document=lambda d: _ratio(d.hits, d.n_relevant),
            budget=True,
        ),
        Family(
            "mrr",
            span=lambda v: 1 / v.first_hit if v.first_hit is not None and v.first_hit <= v.k else 0.0,
            spans=lambda c: np.where(c.first_hit <= c.k, 1 / c.first_hit, 0.0),
            document=lambda d: np.where(d.first <= d.k, 1.0 / d.first, 0.0),
        ),
        Family(
            "ndcg",
            span=lambda v: v.dcg / v.idcg,
            spans=lambda c: c.dcg / c.idcg,
            document=lambda d: _ratio(d.dcg, d.idcg),
        ),
        Family(
            "coverage",
            span=lambda v: v.covered / v.evidence_chars,
            spans=lambda c: c.covered / c.evidence_chars,
            budget=True,
        ),
        Family(
            "char_precision",
            span=lambda v: v.covered / v.lengths if v.lengths else 0.0,
            spans=lambda c: _ratio(c.covered, c.lengths),
        ),
        Family(
            "iou",
            span=lambda v: v.covered / (v.lengths + v.evidence_chars - v.covered),
            spans=lambda c: c.covered / (c.lengths + c.evidence_chars - c.covered),
        ),
        Family("map", document=lambda d: _ratio(d.ap, d.n_relevant)),
        Family("precision", document=lambda d: d.hits / d.k),
        # Filtered questions: leak@k = forbidden chunks in the top k / chunks in the top k (0 for an empty list);
        # filtered_recall@k and filtered_ndcg@k are recall@k and ndcg@k over the filtered questions alone.
        Family(
            "leak",
            filtered=lambda v: v.forbidden / v.n_top if v.n_top else 0.0,
            higher_is_better=False,
            unlabelled=True,
        ),
        Family("filtered_recall", filtered=lambda v: v.measured.get("recall", float("nan"))),
        Family("filtered_ndcg", filtered=lambda v: v.measured.get("ndcg", float("nan"))),
        Family(
            "precision_omega",
            span=lambda v: v.touched_covered / v.touched if v.touched else 0.0,
            spans=lambda c: _ratio(c.touched_covered, c.touched),
            at_k=False,
        ),
        # survival = evidence characters the parse kept / all evidence characters (a lost excerpt counts with
        # its length), once per question, averaged over the questions with evidence spans; 1 where every
        # document is text as stored. Parsers are compared on it beside recall (parse/, data/excerpts.py).
        Family(
            "survival",
            span=lambda v: (v.evidence_chars - v.lost_chars) / v.evidence_chars,
            spans=lambda c: (c.evidence_chars - c.lost_chars) / c.evidence_chars,
            at_k=False,
        ),
    )
}


def span_families() -> list[Family]:
    """Families measured at each k on span questions."""
    return [f for f in FAMILIES.values() if f.span is not None and f.at_k]


def document_families() -> list[Family]:
    """Families measured at each k on questions with document judgements."""
    return [f for f in FAMILIES.values() if f.document is not None]


def filtered_families() -> list[Family]:
    """Families measured at each k on questions that carry a filter."""
    return [f for f in FAMILIES.values() if f.filtered is not None]


def budget_families() -> list[Family]:
    """Families also measured on contexts cut by a character budget."""
    return [f for f in FAMILIES.values() if f.budget]


def whole_families() -> list[Family]:
    """Families measured once per question (no cut-off)."""
    return [f for f in FAMILIES.values() if not f.at_k]


def columnar() -> bool:
    """Whether every family measured on span questions (at each k, once, or at budgets) has ``spans``: then the
    evaluation measures them all on columns (``batch.span_batch``), else view by view."""
    return all(f.spans is not None for f in FAMILIES.values() if f.span is not None)


def metric_columns(ks: Sequence[int]) -> list[str]:
    """Metric names in report order: each family at each k, then the once-per-question families."""
    at_k = [f"{f.name}@{k}" for f in FAMILIES.values() if f.at_k for k in ks]
    return at_k + [f.name for f in whole_families()]


def budget_columns(budgets: Sequence[int]) -> list[str]:
    """Budgeted metric names in report order: each budgeted family at each budget."""
    return [f"{f.name}@{b}chars" for f in budget_families() for b in sorted(set(budgets))]
