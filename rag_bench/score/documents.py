"""Document-level metrics from chunk rankings, equal to trec_eval (DESIGN section 3).

A document ranks where its first chunk ranks (its later chunks are dropped) and takes
that chunk's score. As in trec_eval, each question's documents are then ordered by
score descending, then document id descending (string order), so ties score alike.

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

FAMILIES = ("hit", "recall", "mrr", "ndcg", "map", "precision")


@dataclass(frozen=True)
class DocumentRun:
    """Per-question document rankings in trec_eval order."""

    doc_ids: tuple[str, ...]  # document index -> id, in ascending string order
    ranked: np.ndarray  # (n_questions, width) int64 document indices, best first, -1 padded
    scores: np.ndarray  # (n_questions, width) float64 document scores, NaN where padded


def document_run(ranked: np.ndarray, scores: np.ndarray, chunk_doc_ids: Sequence[str]) -> DocumentRun:
    """Document rankings from chunk rankings (chunk indices best first, -1 padded, with scores).

    ``chunk_doc_ids[c]`` is the document of chunk c. A document keeps its first chunk's
    rank and score; rows are then sorted by score descending, then document id descending.
    """
    ranked = np.asarray(ranked, dtype=np.int64)
    scores = np.asarray(scores, dtype=np.float64)
    doc_ids, chunk_doc = np.unique(np.asarray(list(chunk_doc_ids), dtype=object), return_inverse=True)
    valid = ranked >= 0
    docs = np.where(valid, chunk_doc.reshape(-1)[np.where(valid, ranked, 0)], -1)  # (n, width)
    keep = _first_occurrences(docs) & valid
    # Document indices follow string order, so "id descending" is "index descending".
    order = np.lexsort((-docs, -np.where(keep, scores, 0.0), ~keep), axis=1)
    kept = np.take_along_axis(keep, order, axis=1)
    width = int(kept.sum(axis=1).max(initial=0))
    out_docs = np.where(kept, np.take_along_axis(docs, order, axis=1), -1)[:, :width]
    out_scores = np.where(kept, np.take_along_axis(scores, order, axis=1), np.nan)[:, :width]
    return DocumentRun(tuple(str(d) for d in doc_ids), out_docs, out_scores)


def _first_occurrences(docs: np.ndarray) -> np.ndarray:
    """(n, width) bool: True where a row's value appears for the first time in that row."""
    n, width = docs.shape
    positions = np.broadcast_to(np.arange(width), (n, width))
    order = np.lexsort((positions, docs), axis=1)  # each row grouped by value, then by position
    grouped = np.take_along_axis(docs, order, axis=1)
    first = np.ones((n, width), dtype=bool)
    first[:, 1:] = grouped[:, 1:] != grouped[:, :-1]
    out = np.empty_like(first)
    np.put_along_axis(out, order, first, axis=1)
    return out


def trec_run(run: DocumentRun, question_ids: Sequence[str]) -> dict[str, dict[str, float]]:
    """The pytrec_eval run ``{question_id: {doc_id: score}}``; a question with nothing retrieved maps to {}."""
    out: dict[str, dict[str, float]] = {}
    for qid, docs, scores in zip(question_ids, run.ranked, run.scores, strict=True):
        out[qid] = {run.doc_ids[d]: float(s) for d, s in zip(docs, scores, strict=True) if d >= 0}
    return out


def document_metrics(
    run: DocumentRun, judgements: Sequence[Mapping[str, int]], ks: Sequence[int]
) -> dict[str, np.ndarray]:
    """``{"recall@10": (n_questions,) float64, ...}`` for every family in FAMILIES and k in ``ks``."""
    if len(judgements) != run.ranked.shape[0]:
        raise ValueError(f"{len(judgements)} judgement sets for {run.ranked.shape[0]} ranked questions")
    depth = max(max(ks), run.ranked.shape[1])
    grades = _pad(_grades(run, judgements), depth)  # (n, depth) grade of each ranked document
    ideal = _pad(_ideal_grades(judgements), depth)  # (n, depth) positive grades, descending
    n_rel = np.array([sum(1 for g in j.values() if g >= 1) for j in judgements], dtype=np.float64)
    ranks = np.arange(1, depth + 1, dtype=np.float64)
    relevant = grades >= 1
    found = np.cumsum(relevant, axis=1)  # (n, depth) relevant documents in the top r
    ap = np.cumsum(np.where(relevant, found / ranks, 0.0), axis=1)
    discount = np.log2(ranks + 1)
    dcg = np.cumsum(np.maximum(grades, 0) / discount, axis=1)
    idcg = np.cumsum(ideal / discount, axis=1)
    first = np.where(relevant.any(axis=1), relevant.argmax(axis=1) + 1, depth + 1)
    has_rel = n_rel > 0
    safe_rel = np.where(has_rel, n_rel, 1.0)
    out: dict[str, np.ndarray] = {}
    for k in ks:
        hits = found[:, k - 1].astype(np.float64)
        ideal_k = idcg[:, k - 1]
        out[f"hit@{k}"] = (hits > 0).astype(np.float64)
        out[f"recall@{k}"] = np.where(has_rel, hits / safe_rel, 0.0)
        out[f"mrr@{k}"] = np.where(first <= k, 1.0 / first, 0.0)
        out[f"ndcg@{k}"] = np.where(ideal_k > 0, dcg[:, k - 1] / np.where(ideal_k > 0, ideal_k, 1.0), 0.0)
        out[f"map@{k}"] = np.where(has_rel, ap[:, k - 1] / safe_rel, 0.0)
        out[f"precision@{k}"] = hits / k
    return out


def _grades(run: DocumentRun, judgements: Sequence[Mapping[str, int]]) -> np.ndarray:
    """(n, width) float64 grade of each ranked document; 0 when unjudged or padded."""
    index = {doc_id: i for i, doc_id in enumerate(run.doc_ids)}
    n_docs = max(len(run.doc_ids), 1)
    keys, values = [], []
    for q, judged in enumerate(judgements):
        for doc_id, grade in judged.items():
            if doc_id in index:
                keys.append(q * n_docs + index[doc_id])
                values.append(grade)
    if not keys:
        return np.zeros(run.ranked.shape, dtype=np.float64)
    keys_arr, values_arr = np.asarray(keys, dtype=np.int64), np.asarray(values, dtype=np.float64)
    order = np.argsort(keys_arr)
    keys_arr, values_arr = keys_arr[order], values_arr[order]
    wanted = np.arange(run.ranked.shape[0])[:, None] * n_docs + run.ranked  # (n, width)
    at = np.minimum(np.searchsorted(keys_arr, wanted), len(keys_arr) - 1)
    match = (keys_arr[at] == wanted) & (run.ranked >= 0)
    return np.where(match, values_arr[at], 0.0)


def _ideal_grades(judgements: Sequence[Mapping[str, int]]) -> np.ndarray:
    """(n, max relevant) float64: each question's grades >= 1 sorted descending, 0 padded."""
    positive = [sorted((g for g in j.values() if g >= 1), reverse=True) for j in judgements]
    out = np.zeros((len(judgements), max((len(p) for p in positive), default=0)), dtype=np.float64)
    for q, grades in enumerate(positive):
        out[q, : len(grades)] = grades
    return out


def _pad(matrix: np.ndarray, width: int) -> np.ndarray:
    """``matrix`` cut or zero-padded on the right to ``width`` columns."""
    out = np.zeros((matrix.shape[0], width), dtype=np.float64)
    cols = min(width, matrix.shape[1])
    out[:, :cols] = matrix[:, :cols]
    return out
