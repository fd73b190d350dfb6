"""Score every question's final ranking and aggregate over questions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rag_bench.score.aggregate import Summary, summarise_table
from rag_bench.score.relevance import ChunkLocator, touching
from rag_bench.score.spans import span_metrics
from rag_bench.types import Chunk, Dataset


@dataclass(frozen=True)
class Evaluation:
    """Per-question rows and aggregates of one run."""

    per_question: pd.DataFrame  # one row per question; metric columns NaN when unlabelled
    metric_names: list[str]
    summary: dict[str, Summary]  # over labelled questions
    by_category: dict[str, dict[str, float]]  # category -> metric -> mean
    category_counts: dict[str, int]
    n_scored: int
    n_unlabelled: int


def evaluate(
    dataset: Dataset,
    chunks: Sequence[Chunk],
    ranked: np.ndarray,
    ks: Sequence[int],
    tau: float,
    resamples: int = 1000,
    seed: int = 0,
) -> Evaluation:
    """Span metrics of each question's ranking (``ranked``: (n_questions, width), -1 padded)."""
    locator = ChunkLocator(chunks)
    depth = max(ks)
    rows = []
    for q, question in enumerate(dataset.questions):
        row = ranked[q][ranked[q] >= 0]
        top = [chunks[c].id for c in row[:depth]]
        base = {"question_id": question.id, "category": question.category, "n_spans": len(question.spans)}
        if not question.spans:
            rows.append({**base, "labelled": False, "first_hit_rank": None, "top_chunks": top})
            continue
        values, first = span_metrics(row, chunks, question.spans, touching(locator, question.spans, tau), ks)
        rows.append({**base, "labelled": True, "first_hit_rank": first, **values, "top_chunks": top})
    table = pd.DataFrame(rows)
    names = metric_columns(ks)
    for name in names:
        if name not in table:
            table[name] = np.nan
    table = table[["question_id", "category", "labelled", "n_spans", "first_hit_rank", *names, "top_chunks"]]
    scored = table[table["labelled"]]
    summary = summarise_table({n: scored[n].to_numpy(float) for n in names}, resamples, seed)
    by_category, counts = {}, {}
    for category, group in scored.groupby(scored["category"].fillna("(none)"), sort=True):
        by_category[str(category)] = {n: float(group[n].mean()) for n in names}
        counts[str(category)] = len(group)
    return Evaluation(table, names, summary, by_category, counts, len(scored), len(table) - len(scored))


def metric_columns(ks: Sequence[int]) -> list[str]:
    """Metric names in report order: rank metrics, then character metrics, at each k."""
    families = ("hit", "recall", "mrr", "ndcg", "coverage", "char_precision", "iou")
    return [f"{f}@{k}" for f in families for k in ks] + ["precision_omega"]
