"""Document-level metrics from chunk rankings, equal to trec_eval (DESIGN section 3).

A document ranks where its first chunk ranks (its later chunks are dropped) and takes
that chunk's score; the chunk list's order, ties included, is the document ranking
(``core/ties.py``: one tie rule for every list). trec_eval orders tied scores by docno
instead, so the document run handed to it (``trec_run``, ``run_documents.trec``) carries
scores made strictly decreasing in float32 (``core/ties.trec_scores``): pytrec_eval then
ranks the documents as rag-bench does, and every value below equals it.

With g(d) the judged grade (0 when unjudged), d relevant when g(d) >= 1, R the number
of relevant judged documents and r the rank from 1, at cut-off k:
  hit@k        1 if any of the top k is relevant                       (trec_eval success_k)
  precision@k  |relevant in the top k| / k                             (P_k)
  recall@k     |relevant in the top k| / R                             (recall_k)
  mrr@k        1 / the first relevant rank r <= k, else 0                (recip_rank cut at k)
  map@k        sum of precision@r over relevant r <= k, / R              (map_cut_k)
  ndcg@k       DCG@k / IDCG@k, DCG@k = sum_{r<=k} max(g, 0) / log2(r + 1), IDCG@k the
               same over the judged positive grades sorted descending     (ndcg_cut_k)
Every value is 0 when R = 0. Sums run in rank order, as trec_eval's do.
Reference: trec_eval 9 (usnistgov/trec_eval, m_*.c); Jarvelin & Kekalainen, ACM TOIS 20(4), 2002.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rag_bench.core.ties import trec_order, trec_scores
from rag_bench.score.metrics import document_families
from rag_bench.score.views import DocumentCounts

FAMILIES = tuple(f.name for f in document_families())  # the document-level entries of the metric table


@dataclass(frozen=True)
class DocumentRun:
    """Per-question document rankings, each document where its first chunk ranks."""

    doc_ids: tuple[str, ...]  # document index -> id, in ascending string order
    ranked: np.ndarray  # (n_questions, width) int64 document indices, best first, -1 padded
    scores: np.ndarray  # (n_questions, width) float64 document scores, NaN where padded


def document_run(ranked: np.ndarray, scores: np.ndarray, chunk_doc_ids: Sequence[str]) -> DocumentRun:
    """Document rankings from chunk rankings (chunk indices best first, -1 padded, with scores).

    ``chunk_doc_ids[c]`` is the document of chunk c. A document keeps its first chunk's
    rank and score; the rows keep the chunk lists' order (ties as the chunk lists broke them).
    """
    ranked = np.asarray(ranked, dtype=np.int64)
    scores = np.asarray(scores, dtype=np.float64)
    chunk_doc, doc_ids = _document_indices(chunk_doc_ids)
    valid = ranked >= 0
    if np.isnan(scores[valid]).any():
        raise ValueError("chunk scores must not be NaN")
    lookup = np.append(chunk_doc, -1)  # chunk index -> document index; the last slot serves padding
    docs = lookup[np.where(valid, ranked, len(lookup) - 1)]  # (n, width)
    keep = _first_occurrences(docs) & valid
    # each row's kept documents moved to its front, in rank order (a stable sort of "not kept")
    order = np.argsort(~keep, axis=1, kind="stable")
    width = int(keep.sum(axis=1).max(initial=0))
    order = order[:, :width]
    out_docs = np.take_along_axis(np.where(keep, docs, -1), order, axis=1)
    out_scores = np.where(out_docs >= 0, np.take_along_axis(scores, order, axis=1), np.nan)
    return DocumentRun(doc_ids, out_docs, out_scores)


def rankings_run(rankings: Mapping[str, Sequence[tuple[str, float]]], question_ids: Sequence[str]) -> DocumentRun:
    """A DocumentRun from per-question ``[(doc_id, score), ...]`` (e.g. ``read_trec_run``), in trec_eval order
    (``core/ties.trec_order``: float32 score descending, then doc_id descending).

    A question missing from ``rankings`` retrieved nothing; each doc_id must appear once per question.
    """
    rows = [[(d, s) for d, s, _ in trec_order((d, s, None) for d, s in rankings.get(qid, ()))] for qid in question_ids]
    doc_ids = tuple(sorted({doc_id for row in rows for doc_id, _ in row}))
    index = {doc_id: i for i, doc_id in enumerate(doc_ids)}
    width = max((len(row) for row in rows), default=0)
    docs = np.full((len(rows), width), -1, dtype=np.int64)
    scores = np.full((len(rows), width), np.nan)
    for q, row in enumerate(rows):
        docs[q, : len(row)] = [index[doc_id] for doc_id, _ in row]
        scores[q, : len(row)] = [score for _, score in row]
    return DocumentRun(doc_ids, docs, scores)


def _document_indices(chunk_doc_ids: Sequence[str]) -> tuple[np.ndarray, tuple[str, ...]]:
    """(n_chunks,) int64 index of each chunk's document, and the sorted distinct document ids."""
    first_seen: dict[str, int] = {}
    seen = np.fromiter(
        (first_seen.setdefault(d, len(first_seen)) for d in chunk_doc_ids), np.int64, count=len(chunk_doc_ids)
    )
    names = list(first_seen)
    order = sorted(range(len(names)), key=names.__getitem__)
    position = np.empty(len(names), dtype=np.int64)
    position[order] = np.arange(len(names))
    return position[seen], tuple(names[i] for i in order)


def _first_occurrences(docs: np.ndarray) -> np.ndarray:
    """(n, width) bool: True where a row's value appears for the first time in that row."""
    n, width = docs.shape
    order = np.argsort(docs * width + np.arange(width), axis=1)  # grouped by value, then position
    grouped = np.take_along_axis(docs, order, axis=1)
    first = np.ones((n, width), dtype=bool)
    first[:, 1:] = grouped[:, 1:] != grouped[:, :-1]
    out = np.empty_like(first)
    np.put_along_axis(out, order, first, axis=1)
    return out


def trec_run(run: DocumentRun, question_ids: Sequence[str]) -> dict[str, dict[str, float]]:
    """The pytrec_eval run ``{question_id: {doc_id: score}}`` that ranks as ``run`` does (scores strictly
    decreasing in float32, ``core/ties.trec_scores``); a question with nothing retrieved maps to {}."""
    out: dict[str, dict[str, float]] = {}
    for qid, docs, scores in zip(question_ids, run.ranked, run.scores, strict=True):
        kept = docs >= 0
        out[qid] = dict(zip((run.doc_ids[d] for d in docs[kept]), trec_scores(scores[kept]), strict=True))
    return out


def document_metrics(
    run: DocumentRun, judgements: Sequence[Mapping[str, int]], ks: Sequence[int]
) -> dict[str, np.ndarray]:
    """``{"recall@10": (n_questions,) float64, ...}`` for every family in FAMILIES and k in ``ks``.

    Works on the judged documents only: each question's retrieved judged documents
    (rank order) and its ideal ranking, so the cost grows with the judgements, not the depth.
    """
    n = run.ranked.shape[0]
    if len(judgements) != n:
        raise ValueError(f"{len(judgements)} judgement sets for {n} ranked questions")
    if not ks or min(ks) < 1:
        raise ValueError(f"every cut-off k must be a positive integer, got {list(ks)}")
    judged = _Judged.build(judgements, run.doc_ids)
    n_rel = np.bincount(judged.question, weights=judged.grade >= 1, minlength=n)
    # retrieved relevant documents, sorted by question then rank (rank = column + 1)
    rows, cols, grades = judged.retrieved(run.ranked)
    relevant = grades >= 1
    rows, cols, grades = rows[relevant], cols[relevant], grades[relevant]
    found = 1 + np.arange(rows.size) - _group_starts(rows, n)[rows]  # relevant ones up to this rank
    precision_here = found / (cols + 1.0)
    gain_here = grades / np.log2(cols + 2.0)
    first = np.full(n, np.inf)
    first[rows[found == 1]] = cols[found == 1] + 1.0
    ideal_rows, ideal_cols, ideal_grades = judged.ideal()
    ideal_gain = ideal_grades / np.log2(ideal_cols + 2.0)
    out: dict[str, np.ndarray] = {}
    for k in ks:
        top, ideal_top = cols < k, ideal_cols < k
        counts = DocumentCounts(
            k=k,
            hits=np.bincount(rows[top], minlength=n).astype(np.float64),
            n_relevant=n_rel,
            first=first,
            dcg=np.bincount(rows[top], weights=gain_here[top], minlength=n),
            idcg=np.bincount(ideal_rows[ideal_top], weights=ideal_gain[ideal_top], minlength=n),
            ap=np.bincount(rows[top], weights=precision_here[top], minlength=n),
        )
        out.update({f"{family.name}@{k}": family.document(counts) for family in document_families()})
    return out


def _group_starts(sorted_rows: np.ndarray, n: int) -> np.ndarray:
    """(n,) index of each row's first entry in ``sorted_rows`` (ascending row numbers)."""
    counts = np.bincount(sorted_rows, minlength=n)
    return np.cumsum(counts) - counts


@dataclass(frozen=True)
class _Judged:
    """All judgements flattened: one entry per (question, judged document)."""

    question: np.ndarray  # (n_judged,) int64 question index
    doc: np.ndarray  # (n_judged,) int64 index into the run's doc_ids; -1 when never retrieved
    grade: np.ndarray  # (n_judged,) float64
    n_docs: int

    @classmethod
    def build(cls, judgements: Sequence[Mapping[str, int]], doc_ids: Sequence[str]) -> _Judged:
        n_docs, sizes = len(doc_ids), [len(j) for j in judgements]
        judged_ids = [doc_id for j in judgements for doc_id in j]
        # The run's ids are distinct and come first, so they factorize to 0 .. n_docs - 1.
        codes, _ = pd.factorize(np.array([*doc_ids, *judged_ids], dtype=object))
        docs = codes[n_docs:].astype(np.int64)
        docs[docs >= n_docs] = -1
        grades = np.fromiter((g for j in judgements for g in j.values()), np.float64, count=len(judged_ids))
        return cls(np.repeat(np.arange(len(judgements)), sizes), docs, grades, n_docs)

    def retrieved(self, ranked: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, columns, grades) of the judged entries of ``ranked``, in row-major order."""
        known = self.doc >= 0
        keys = self.question[known] * self.n_docs + self.doc[known]  # one per judged (question, document)
        order = np.argsort(keys)
        keys, values = keys[order], self.grade[known][order]
        wanted = np.arange(ranked.shape[0])[:, None] * self.n_docs + ranked  # (n, width)
        # A bitmap of the keys' low bits screens out most unjudged entries (about 1 in 30
        # passes by chance); a binary search then confirms the rest exactly.
        size = 1 << min(26, max(10, (32 * keys.size).bit_length()))
        bitmap = np.zeros(size, dtype=bool)
        bitmap[keys & (size - 1)] = True
        rows, cols = np.nonzero(bitmap[wanted & (size - 1)] & (ranked >= 0))
        if keys.size == 0:
            return rows, cols, np.zeros(rows.size)
        candidates = wanted[rows, cols]
        at = np.minimum(np.searchsorted(keys, candidates), keys.size - 1)
        match = keys[at] == candidates
        return rows[match], cols[match], values[at[match]]

    def ideal(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, columns, grades) of every question's ideal ranking: its grades >= 1, descending."""
        positive = self.grade >= 1
        question, grade = self.question[positive], self.grade[positive]
        order = np.lexsort((-grade, question))
        question, grade = question[order], grade[order]
        n = int(self.question.max(initial=-1)) + 1
        return question, np.arange(question.size) - _group_starts(question, n)[question], grade
