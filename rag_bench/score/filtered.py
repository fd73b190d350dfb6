"""Metrics of a question that carries a metadata filter: what its top k leaks, and its quality under the filter.

With F the chunks whose document the question's filter forbids and T_k its top k chunks:
  leak@k             |T_k & F| / |T_k|  (0 when the list is empty): 0 means nothing forbidden reached the prompt
  filtered_recall@k  recall@k of the question (its evidence always lies in documents the filter allows)
  filtered_ndcg@k    ndcg@k of the question
  selectivity        share of the run's chunks the filter allows (a per-question column, not a metric)
Aggregated over the questions that carry a filter, labelled or not: an access-control probe (a
filtered question with no evidence) has a leak@k like any other, and one that leaks raises the mean.
filtered_recall@k and filtered_ndcg@k exist on labelled filtered questions only, so
``filtered_recall@10`` under ``filter_mode=pre`` and under ``none`` compare the same questions with
and without the filter applied.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from rag_bench.core.filters import Filter, MetadataTable
from rag_bench.core.types import Chunk, Dataset
from rag_bench.score.metrics import filtered_families
from rag_bench.score.views import FilterView


def chunk_metadata(dataset: Dataset, chunks: Sequence[Chunk]) -> MetadataTable | None:
    """Each chunk's document metadata, when any question carries a filter (else None)."""
    if not any(q.filter is not None for q in dataset.questions):
        return None
    docs = {d.id: d.metadata for d in dataset.documents}
    return MetadataTable([docs.get(c.doc_id, {}) for c in chunks])


def filter_metrics(
    ranked: np.ndarray, flt: Filter, table: MetadataTable, ks: Sequence[int], values: Mapping[str, float]
) -> dict[str, float]:
    """Every filtered metric of one question (``ranked``: its chunk indices, best first, no padding)."""
    allowed = table.mask(flt)
    out: dict[str, float] = {"selectivity": float(allowed.mean()) if len(allowed) else 0.0}
    for k in sorted(ks):
        top = ranked[:k]
        measured = {name: values[f"{name}@{k}"] for name in ("recall", "ndcg") if f"{name}@{k}" in values}
        view = FilterView(k=k, n_top=int(top.size), forbidden=int((~allowed[top]).sum()), measured=measured)
        out.update({f"{family.name}@{k}": family.filtered(view) for family in filtered_families()})
    return out
