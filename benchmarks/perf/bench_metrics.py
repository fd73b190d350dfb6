"""Goal 3a: document metrics on 5,000 queries x 100 retrieved chunks, against pytrec_eval.

The goal compares the metric computations, each from a document run in its own input form:
ours from ``DocumentRun`` arrays, pytrec_eval from its ``{qid: {docid: score}}`` dict (its
evaluator construction is timed with its evaluation, as a user pays both). The end-to-end
time from chunk rankings (ours: ``document_run`` + metrics; pytrec_eval: ``document_run`` +
``trec_run`` + evaluation) is printed too. Values must be equal (|diff| <= 1e-12).
"""

from __future__ import annotations

import math

import numpy as np
import pytrec_eval
from common import Check, interleaved, report

from rag_bench.score.documents import document_metrics, document_run, trec_run

N_QUERIES, DEPTH, N_DOCS, CHUNKS_PER_DOC, KS = 5_000, 100, 20_000, 5, (1, 3, 5, 10, 20, 100)


def synthetic(seed: int) -> tuple[np.ndarray, np.ndarray, list[str], list[dict[str, int]]]:
    """Chunk rankings (scores descending, a few ties), each chunk's document, graded judgements."""
    rng = np.random.default_rng(seed)
    n_chunks = N_DOCS * CHUNKS_PER_DOC
    chunk_docs = [f"doc{c // CHUNKS_PER_DOC:05d}" for c in range(n_chunks)]
    ranked = np.stack([rng.choice(n_chunks, DEPTH, replace=False) for _ in range(N_QUERIES)])
    scores = -np.sort(-np.round(rng.random((N_QUERIES, DEPTH)), 2), axis=1)  # rounding makes ties
    judgements = []
    for q in range(N_QUERIES):
        retrieved = {chunk_docs[c] for c in ranked[q, rng.integers(0, DEPTH, 4)].tolist()}
        unseen = {f"doc{d:05d}" for d in rng.integers(0, N_DOCS, 3).tolist()}
        judgements.append({d: int(rng.integers(0, 4)) for d in sorted(retrieved | unseen)})
    return ranked, scores, chunk_docs, judgements


def pytrec_values(raw: dict, qid: str) -> dict[str, float]:
    """pytrec_eval's values for one question under our metric names."""
    values, out = raw[qid], {}
    rr = values["recip_rank"]
    first = round(1 / rr) if rr > 0 else math.inf
    for k in KS:
        out[f"hit@{k}"] = values[f"success_{k}"]
        out[f"recall@{k}"] = values[f"recall_{k}"]
        out[f"mrr@{k}"] = rr if first <= k else 0.0
        out[f"ndcg@{k}"] = values[f"ndcg_cut_{k}"]
        out[f"map@{k}"] = values[f"map_cut_{k}"]
        out[f"precision@{k}"] = values[f"P_{k}"]
    return out


def main() -> None:
    ranked, scores, chunk_docs, judgements = synthetic(seed=5)
    qids = [f"q{i}" for i in range(N_QUERIES)]
    cut = ",".join(map(str, KS))
    measures = {f"ndcg_cut.{cut}", f"map_cut.{cut}", f"P.{cut}", f"recall.{cut}", f"success.{cut}", "recip_rank"}
    qrels = dict(zip(qids, judgements, strict=True))
    doc_run = document_run(ranked, scores, chunk_docs)
    run = trec_run(doc_run, qids)
    results: dict[str, object] = {}

    def ours() -> None:
        results["ours"] = document_metrics(doc_run, judgements, KS)

    def oracle() -> None:
        results["pytrec"] = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)

    def ours_from_chunks() -> None:
        document_metrics(document_run(ranked, scores, chunk_docs), judgements, KS)

    def oracle_from_chunks() -> None:
        pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(
            trec_run(document_run(ranked, scores, chunk_docs), qids)
        )

    seconds = interleaved({"ours": ours, "pytrec_eval": oracle}, repeats=5)
    end_to_end = interleaved({"ours": ours_from_chunks, "pytrec_eval": oracle_from_chunks}, repeats=3)
    mine, raw = results["ours"], results["pytrec"]
    diff = max(
        abs(mine[name][q] - value) for q, qid in enumerate(qids) for name, value in pytrec_values(raw, qid).items()
    )
    details = [
        f"{N_QUERIES} queries x {DEPTH} chunks ({N_DOCS} documents x {CHUNKS_PER_DOC} chunks), "
        f"{sum(map(len, judgements))} graded judgements, 6 families x {len(KS)} cut-offs",
        f"metrics from a document run: ours {seconds['ours']:.3f} s, pytrec_eval {seconds['pytrec_eval']:.3f} s",
        f"end to end from chunk rankings: ours {end_to_end['ours']:.3f} s, "
        f"pytrec_eval {end_to_end['pytrec_eval']:.3f} s "
        f"({end_to_end['pytrec_eval'] / end_to_end['ours']:.1f}x)",
        f"max |value diff| {diff:g} over {N_QUERIES} questions x {6 * len(KS)} metrics",
    ]
    checks = [
        Check("3 metrics", "speed-up vs pytrec_eval", seconds["pytrec_eval"] / seconds["ours"], ">=", 5.0),
        Check("3 metrics", "max |value - pytrec_eval value|", diff, "<=", 1e-12),
    ]
    report("Goal 3a: document metrics", checks, details)


if __name__ == "__main__":
    main()
