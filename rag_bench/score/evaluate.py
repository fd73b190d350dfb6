"""Score every question's final ranking and aggregate over questions.

Questions with evidence spans get span metrics (``spans.py``); questions with document
judgements get document metrics equal to trec_eval (``documents.py``); questions with
neither are unanswerable: listed, and excluded from every aggregate but those of the filter
metrics (``filtered.py``), which average over every question that carries a filter, labelled or not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rag_bench.core.errors import ConfigError
from rag_bench.core.pauses import no_collector_pauses
from rag_bench.core.types import Chunk, Dataset
from rag_bench.score.aggregate import Summary, summarise_table
from rag_bench.score.budget import budget_table, budget_views
from rag_bench.score.documents import DocumentRun, document_metrics, document_run
from rag_bench.score.filtered import chunk_metadata, filter_metrics
from rag_bench.score.languages import language_means, question_languages
from rag_bench.score.metrics import FAMILIES, budget_columns, metric_columns
from rag_bench.score.names import parse_metric
from rag_bench.score.relevance import ChunkLocator, touching
from rag_bench.score.spans import span_table, span_values, span_views


@dataclass(frozen=True)
class Evaluation:
    """Per-question rows and aggregates of one run."""

    per_question: pd.DataFrame  # one row per question; metric columns NaN where a metric does not apply
    metric_names: list[str]  # metrics measured on at least one question
    summary: dict[str, Summary]  # over the questions each metric applies to
    by_category: dict[str, dict[str, float]]  # category -> metric -> mean
    category_counts: dict[str, int]  # category -> questions measured (labelled, or carrying a filter)
    n_scored: int  # labelled questions
    n_unlabelled: int
    documents: DocumentRun | None = None  # the document ranking, when any question has judgements
    shortfall: dict[str, int] = field(default_factory=dict)  # cut-off -> labelled questions whose list falls short
    by_language: dict[str, dict[str, float]] = field(default_factory=dict)  # language group -> metric -> mean
    language_counts: dict[str, int] = field(default_factory=dict)  # language group -> questions measured
    # per question: chunk index -> the spans it hits, for every chunk touching its evidence (``relevance.touching``
    # at this run's tau); None for a question without spans. The failure classes and the run page read these
    # instead of matching the evidence again.
    touching: list[dict[int, frozenset[int]] | None] = field(default_factory=list)


def evaluate(
    dataset: Dataset,
    chunks: Sequence[Chunk],
    ranked: np.ndarray,
    scores: np.ndarray,
    ks: Sequence[int],
    tau: float,
    resamples: int = 1000,
    seed: int = 0,
    budgets: Sequence[int] = (),
) -> Evaluation:
    """Metrics of each question's ranking (``ranked``/``scores``: (n_questions, width), -1 padded)."""
    with no_collector_pauses():  # many small objects per question (core/pauses.py)
        return _evaluate(dataset, chunks, ranked, scores, ks, tau, resamples, seed, budgets)


def _evaluate(dataset, chunks, ranked, scores, ks, tau, resamples, seed, budgets) -> Evaluation:
    locator = ChunkLocator(chunks)
    judged = any(q.judgements for q in dataset.questions)
    run = document_run(ranked, scores, [c.doc_id for c in chunks]) if judged else None
    by_docs = document_metrics(run, [q.judgements for q in dataset.questions], ks) if judged else {}
    metadata = chunk_metadata(dataset, chunks)  # None unless some question carries a filter
    rows, nears = [], []
    views, budgeted, with_spans = [], [], []  # each span question's views at the cut-offs, at the budgets; its row
    ids = _ChunkIds(chunks)  # chunk index -> id, each made once
    lengths = [c.end - c.start for c in chunks]  # source characters of each chunk (len(chunk))
    top = max(ks)
    for q, (question, listed) in enumerate(zip(dataset.questions, listed_rows(ranked), strict=True)):
        base = {
            "question_id": question.id,
            "category": question.category,
            "labelled": question.labelled,
            "n_spans": len(question.spans) + len(question.lost),
            "top_chunks": [ids[c] for c in listed[:top]],
        }
        reach: dict[str, float] = {}  # how far the list reaches, for the cut-offs it may fall short of
        near = touching(locator, question.spans, tau) if question.has_evidence else None
        nears.append(near)
        spans: dict[str, float] = {}  # its span metrics, when a filter metric reads them (the table has them all)
        if near is not None:
            views.append(span_views(listed, chunks, question.spans, near, ks, question.lost, lengths))
            with_spans.append(q)
            first = views[-1][-1].first_hit
            spans = span_values(views[-1]) if question.filter is not None else spans
            budgeted.append(budget_views(listed, chunks, question.spans, budgets, tau, question.lost))
            values = {}
            reach["chars_retrieved"] = float(sum(map(lengths.__getitem__, listed)))
        elif question.labelled:
            values = {name: float(column[q]) for name, column in by_docs.items()}
            first = first_relevant_rank(run, q, question.judgements)
            reach["documents_retrieved"] = float((run.ranked[q] >= 0).sum())
        else:
            values, first = {}, None
        if question.filter is not None:
            values.update(filter_metrics(ranked[q][ranked[q] >= 0], question.filter, metadata, ks, spans | values))
        rows.append({**base, "first_hit_rank": first, **values, **reach})
    table = with_columns(pd.DataFrame(rows), with_spans, span_table(views) | budget_table(budgeted, budgets))
    languages = question_languages(dataset)  # None: no document or question gives a language
    if languages is not None:
        table.insert(2, "language", languages)
    names = [n for n in metric_columns(ks) + budget_columns(budgets) if n in table and table[n].notna().any()]
    reach_columns = [c for c in ("documents_retrieved", "chars_retrieved") if c in table]
    filtered = ["selectivity"] if metadata is not None else []
    table = table.reindex(
        columns=[
            "question_id",
            "category",
            *(["language"] if languages is not None else []),
            "labelled",
            "n_spans",
            *filtered,
            "first_hit_rank",
            *names,
            *reach_columns,
        ]
        + ["top_chunks"]
    )
    scored = table[table["labelled"]]
    measured = table[measured_rows(table, dataset)]  # labelled, or carrying a filter (filter metrics)
    values = measured[names].to_numpy(float)  # (n_measured, n_metrics), NaN where a metric does not apply
    columns = {n: column[~np.isnan(column)] for n, column in zip(names, values.T, strict=True)}
    summary = summarise_table(columns, resamples, seed)
    groups = measured.groupby(measured["category"].fillna("(none)"), sort=True)
    means, sizes = groups[names].mean(), groups.size()
    by_category = {str(c): {n: float(means.at[c, n]) for n in names} for c in means.index}
    counts = {str(c): int(sizes[c]) for c in sizes.index}
    short = shortfall(scored, max(ks), budgets)
    by_language, language_counts = language_means(measured, names) if languages is not None else ({}, {})
    return Evaluation(
        table,
        names,
        summary,
        by_category,
        counts,
        len(scored),
        len(table) - len(scored),
        run,
        short,
        by_language,
        language_counts,
        nears,
    )


def with_columns(table: pd.DataFrame, at: list[int], columns: dict[str, np.ndarray]) -> pd.DataFrame:
    """``table`` with ``columns`` (name -> the values of rows ``at``) written into those rows: into the column of
    that name where the table has one (document questions' ``recall@k`` beside span questions'), else into a
    new column, NaN in every other row."""
    if not columns:
        return table
    spread = {}
    for name, values in columns.items():
        column = table[name].to_numpy(dtype=np.float64, copy=True) if name in table else np.full(len(table), np.nan)
        column[at] = values
        spread[name] = column
    kept = table.drop(columns=[name for name in spread if name in table])
    return pd.concat([kept, pd.DataFrame(spread, index=table.index)], axis=1)


def listed_rows(ranked: np.ndarray) -> list[list[int]]:
    """Each row's chunk indices without the -1 pads, as Python ints (the per-chunk loops run on these): a slice
    of each row where every pad trails its row's chunks (as every list rag-bench ranks), else a filter."""
    valid = ranked >= 0
    counts = valid.sum(axis=1)
    if np.array_equal(valid, np.arange(ranked.shape[1]) < counts[:, None]):
        return [row[:n] for row, n in zip(ranked.tolist(), counts.tolist(), strict=True)]
    return [[c for c in row if c >= 0] for row in ranked.tolist()]


class _ChunkIds(dict):
    """Chunk index -> ``chunks[index].id``, each id made on first use."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        super().__init__()
        self.chunks = chunks

    def __missing__(self, c: int) -> str:
        self[c] = self.chunks[c].id
        return self[c]


def measured_rows(table: pd.DataFrame, dataset: Dataset) -> np.ndarray:
    """(n_questions,) bool: the questions some metric is averaged over.

    A labelled question has every metric that applies to it; a question that carries a filter has the
    filter metrics whether it is labelled or not (an access-control probe with no evidence still leaks).
    An unlabelled question's row holds no other metric (NaN), so each metric's mean is over the
    questions it has a value for: labelled ones, and for ``leak@k`` every filtered one.
    """
    filtered = np.array([q.filter is not None for q in dataset.questions], dtype=bool)
    return table["labelled"].to_numpy(dtype=bool) | filtered


def shortfall(scored: pd.DataFrame, top: int, budgets: Sequence[int]) -> dict[str, int]:
    """Labelled questions whose candidates fall short of a cut-off: fewer than ``top`` distinct documents
    (document questions: their metrics at k = ``top`` are capped), or fewer characters than a budget."""
    out: dict[str, int] = {}
    if "documents_retrieved" in scored:
        out[f"documents@{top}"] = int((scored["documents_retrieved"] < top).sum())
    if "chars_retrieved" in scored:
        out.update({f"chars@{b}": int((scored["chars_retrieved"] < b).sum()) for b in sorted(set(budgets))})
    return {name: n for name, n in out.items() if n}


def first_relevant_rank(run: DocumentRun, q: int, judgements) -> int | None:
    """Rank (from 1) of the first document judged relevant in question ``q``'s document ranking."""
    for rank, d in enumerate(run.ranked[q], start=1):
        if d >= 0 and judgements.get(run.doc_ids[d], 0) > 0:
            return rank
    return None


def check_measured(name: str, dataset: Dataset, ks: Sequence[int], budgets: Sequence[int], key: str) -> None:
    """ConfigError unless a run with these cut-offs measures metric ``name`` on ``dataset`` (never a silent NaN)."""
    metric = parse_metric(name)
    family = FAMILIES[metric.family]
    kinds = {"span" if q.has_evidence else "document" for q in dataset.questions if q.labelled}
    kinds |= {"filtered" for q in dataset.questions if q.filter is not None and (q.labelled or family.unlabelled)}
    measures = (("span", family.span), ("document", family.document), ("filtered", family.filtered))
    levels = {level for level, fn in measures if fn is not None}
    if metric.unit == "chars":
        levels, cuts, knob = levels & {"span"}, budgets, "budgets"
    else:
        cuts, knob = (ks, "ks") if family.at_k else ([None], "")
    if not levels & kinds:
        named = {"filtered": "filtered" if family.unlabelled else "labelled filtered"}  # leak@k needs no labels
        on = " and ".join(f"{named.get(level, level)} questions" for level in sorted(levels)) or "no question"
        raise ConfigError(
            f"{key} ({name}) is measured on {on}, and dataset {dataset.name!r} has none; choose another metric"
        )
    if metric.k not in cuts:
        raise ConfigError(f"{key} ({name}) needs {metric.k} in {knob} ({list(cuts)}); add it, or choose another metric")
