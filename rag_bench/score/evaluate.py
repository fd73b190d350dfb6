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
from rag_bench.score.batch import SpanBatch, span_batch
from rag_bench.score.budget import budget_table, budget_table_of, budget_views
from rag_bench.score.documents import DocumentRun, document_metrics, document_run
from rag_bench.score.filtered import chunk_metadata, filter_metrics
from rag_bench.score.languages import language_means, question_languages
from rag_bench.score.metrics import FAMILIES, budget_columns, columnar, metric_columns
from rag_bench.score.names import parse_metric
from rag_bench.score.relevance import ChunkLocator, touching
from rag_bench.score.spans import span_table, span_table_of, span_values, span_views


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
    questions = dataset.questions
    judged = any(q.judgements for q in questions)
    run = document_run(ranked, scores, [c.doc_id for c in chunks]) if judged else None
    by_docs = document_metrics(run, [q.judgements for q in questions], ks) if judged else {}
    metadata = chunk_metadata(dataset, chunks)  # None unless some question carries a filter
    with_spans = [q for q, question in enumerate(questions) if question.has_evidence]
    spanned = [questions[q] for q in with_spans]
    found, measured_spans = _span_inputs(chunks, spanned, ranked[with_spans], ks, budgets, tau)
    nears: list[dict[int, frozenset[int]] | None] = [None] * len(questions)
    first: list[int | None] = [None] * len(questions)
    for j, q in enumerate(with_spans):
        nears[q], first[q] = found.touching[j], found.first_hit[j]
    columns = {
        "question_id": [q.id for q in questions],
        "category": [q.category for q in questions],
        "labelled": [q.labelled for q in questions],
        "n_spans": [len(q.spans) + len(q.lost) for q in questions],
        "top_chunks": top_chunks(chunks, ranked, max(ks)),
        "first_hit_rank": first,
    }
    extra: dict[str, np.ndarray] = {}  # float columns, NaN where a row has no value
    documents = [q for q, question in enumerate(questions) if question.labelled and not question.has_evidence]
    if documents:
        for name, column in by_docs.items():
            _column(extra, name, len(questions))[documents] = np.asarray(column, dtype=np.float64)[documents]
        for q in documents:
            first[q] = first_relevant_rank(run, q, questions[q].judgements)
        _column(extra, "documents_retrieved", len(questions))[documents] = (run.ranked[documents] >= 0).sum(axis=1)
    if with_spans:
        _column(extra, "chars_retrieved", len(questions))[with_spans] = found.chars
    at = {q: j for j, q in enumerate(with_spans)}
    for q, question in enumerate(questions):
        if question.filter is None:
            continue
        if q in at:  # its span metrics, which the filter metrics read
            views = span_views(_listed(ranked[q]), chunks, question.spans, nears[q], ks, question.lost)
            values = span_values(views)
        else:
            values = {name: float(column[q]) for name, column in by_docs.items()} if question.labelled else {}
        for name, value in filter_metrics(ranked[q][ranked[q] >= 0], question.filter, metadata, ks, values).items():
            _column(extra, name, len(questions))[q] = value
    columns.update(extra)
    table = with_columns(pd.DataFrame(columns), with_spans, measured_spans)
    languages = question_languages(dataset)  # None: no document or question gives a language
    if languages is not None:
        table.insert(2, "language", languages)
    listed = [n for n in metric_columns(ks) + budget_columns(budgets) if n in table.columns]
    held = table[listed].notna().any().to_numpy(dtype=bool)  # one pass over every metric column
    names = [n for n, any_value in zip(listed, held, strict=True) if any_value]
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


def _span_inputs(chunks, questions, ranked, ks, budgets, tau) -> tuple[SpanBatch, dict[str, np.ndarray]]:
    """The span questions' evidence matches and inputs, and their span and budgeted metric columns: at once
    (``batch.span_batch``), or question by question where that is not sure to be exact or a family has no
    ``spans`` (the same values)."""
    batch = span_batch(chunks, questions, ranked, ks, budgets, tau) if questions and columnar() else None
    if batch is not None:
        return batch, span_table_of(batch.at_k, ks) | budget_table_of(batch.budgets, budgets)
    locator = ChunkLocator(chunks)
    lengths = [c.end - c.start for c in chunks]  # source characters of each chunk (len(chunk))
    nears, views, budgeted, chars = [], [], [], []
    for question, listed in zip(questions, listed_rows(ranked), strict=True):
        nears.append(touching(locator, question.spans, tau))
        views.append(span_views(listed, chunks, question.spans, nears[-1], ks, question.lost, lengths))
        budgeted.append(budget_views(listed, chunks, question.spans, budgets, tau, question.lost))
        chars.append(sum(map(lengths.__getitem__, listed)))
    first = [question_views[-1].first_hit for question_views in views]
    batch = SpanBatch(nears, [], [], first, np.array(chars, dtype=np.int64))
    return batch, span_table(views) | budget_table(budgeted, budgets)


def _column(columns: dict[str, np.ndarray], name: str, n: int) -> np.ndarray:
    """``columns[name]``, made NaN-filled (n,) float64 on first use."""
    if name not in columns:
        columns[name] = np.full(n, np.nan)
    return columns[name]


def top_chunks(chunks: Sequence[Chunk], ranked: np.ndarray, top: int) -> list[list[str]]:
    """Each question's first ``top`` chunk ids (pads left out), each id made once."""
    head = ranked[:, :top]
    used = np.unique(head[head >= 0])
    ids = np.empty(len(chunks) + 1, dtype=object)  # the last entry: what a pad (-1) picks
    ids[used] = [chunks[c].id for c in used.tolist()]
    rows = ids[head].tolist()
    counts = (head >= 0).sum(axis=1).tolist()
    if np.array_equal(head >= 0, np.arange(head.shape[1]) < np.array(counts)[:, None]):
        return [row[:n] if n < len(row) else row for row, n in zip(rows, counts, strict=True)]
    return [[chunks[c].id for c in _listed(row)[:top]] for row in ranked]  # a pad before a chunk


def _listed(row: np.ndarray) -> list[int]:
    """One row of chunk indices without the -1 pads, as Python ints."""
    return [c for c in row.tolist() if c >= 0]


def listed_rows(ranked: np.ndarray) -> list[list[int]]:
    """Each row's chunk indices without the -1 pads, as Python ints (the per-chunk loops run on these): a slice
    of each row where every pad trails its row's chunks (as every list rag-bench ranks), else a filter."""
    valid = ranked >= 0
    counts = valid.sum(axis=1)
    if np.array_equal(valid, np.arange(ranked.shape[1]) < counts[:, None]):
        return [row[:n] for row, n in zip(ranked.tolist(), counts.tolist(), strict=True)]
    return [[c for c in row if c >= 0] for row in ranked.tolist()]


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
