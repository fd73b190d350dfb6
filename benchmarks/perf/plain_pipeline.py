"""The plain script of issue 32 goal 1: what a competent user writes to evaluate hybrid retrieval by hand.

Usage: python plain_pipeline.py DATASET_FOLDER OUT_FOLDER hybrid|bm25

Reads documents.jsonl and questions.jsonl, splits every document with a recursive character splitter
(paragraphs, lines, sentences, words; 800 characters, no overlap; offsets kept), embeds chunks and
questions with the same hashing vectors rag-bench's ``embedder=fake`` makes (signed feature hashing of
words into 64 dimensions, written out here so the script imports nothing of rag-bench;
``bench_whole_run.py`` checks the vectors equal ``rag_bench.testing.FakeEmbedder``'s), indexes the
chunks in bm25s (default backend, no stop words) and in faiss ``IndexFlatIP``, takes the top 20 of
each, fuses them by reciprocal rank fusion in numpy (k = 60), marks a chunk relevant when it overlaps
the question's evidence by at least half the shorter of the two (rag-bench's tau = 0.5), scores recall,
nDCG and MRR at 1, 3, 5, 10, 20 with pytrec_eval, and writes run.trec and metrics.json.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import bm25s
import faiss
import numpy as np
import pytrec_eval

SIZE, DEPTH, K_RRF, KS, DIM = 800, 20, 60, (1, 3, 5, 10, 20), 64
WORD = re.compile(r"\w+|[^\w\s]")


def embed(texts: list[str]) -> np.ndarray:
    """(n, DIM) unit float32 rows: each lower-cased word adds +-1 to the bucket its blake2b hash picks."""
    out = np.zeros((len(texts), DIM), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in WORD.findall(text.lower()):
            h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
            out[row, h % DIM] += 1.0 if (h >> 32) & 1 else -1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms == 0, 1, norms)


SEPARATORS = ["\n\n", "\n", ". ", " "]


def split(text: str, start: int = 0, level: int = 0) -> list[tuple[int, int]]:
    """(start, end) offsets of pieces of at most SIZE characters, cut at the coarsest separator that fits."""
    if len(text) <= SIZE:
        return [(start, start + len(text))] if text.strip() else []
    if level == len(SEPARATORS):
        return [(start + i, start + min(i + SIZE, len(text))) for i in range(0, len(text), SIZE)]
    sep, out, piece_start, at = SEPARATORS[level], [], 0, 0
    parts = text.split(sep)
    for i, part in enumerate(parts):
        end = at + len(part) + (len(sep) if i < len(parts) - 1 else 0)
        if end - piece_start > SIZE and at > piece_start:  # close the piece before this part
            out.extend(split(text[piece_start:at], start + piece_start, level + 1))
            piece_start = at
        at = end
    out.extend(split(text[piece_start:at], start + piece_start, level + 1))
    return out


def rrf(lists: list[tuple[np.ndarray, np.ndarray]], n_questions: int) -> tuple[np.ndarray, np.ndarray]:
    """(n_questions, 2 * DEPTH) fused chunk ids and scores, best first (-1 padded), by sum 1 / (K_RRF + rank)."""
    ids = np.concatenate([found for found, _ in lists], axis=1)  # (nq, 2 * DEPTH)
    ranks = np.concatenate([np.broadcast_to(np.arange(1, f.shape[1] + 1), f.shape) for f, _ in lists], axis=1)
    contrib = np.where(ids >= 0, 1.0 / (K_RRF + ranks), 0.0)
    order = np.argsort(ids, axis=1, kind="stable")
    ids_sorted = np.take_along_axis(ids, order, axis=1)
    contrib_sorted = np.take_along_axis(contrib, order, axis=1)
    first = np.ones_like(ids_sorted, dtype=bool)
    first[:, 1:] = ids_sorted[:, 1:] != ids_sorted[:, :-1]
    group = np.cumsum(first, axis=1) - 1  # (nq, 2 * DEPTH) group number within the row
    summed = np.zeros(ids.shape)
    np.add.at(summed, (np.arange(n_questions)[:, None].repeat(ids.shape[1], 1), group), contrib_sorted)
    unique = np.full(ids.shape, -1)
    unique[np.nonzero(first)[0], group[first]] = ids_sorted[first]
    summed[unique < 0] = -np.inf
    best = np.argsort(-summed, axis=1, kind="stable")
    return np.take_along_axis(unique, best, axis=1), np.take_along_axis(summed, best, axis=1)


def main(dataset: Path, out: Path, mode: str) -> None:
    docs = [json.loads(line) for line in (dataset / "documents.jsonl").read_text().splitlines()]
    questions = [json.loads(line) for line in (dataset / "questions.jsonl").read_text().splitlines() if line]
    chunks = [(d["id"], s, e) for d in docs for s, e in split(d["text"])]  # (doc id, start, end)
    text_of = {d["id"]: d["text"] for d in docs}
    passages = [text_of[doc][s:e] for doc, s, e in chunks]
    queries = [q["question"] for q in questions]

    bm25 = bm25s.BM25(k1=1.5, b=0.75)
    bm25.index(bm25s.tokenize(passages, stopwords=None, show_progress=False), show_progress=False)
    found, scores = bm25.retrieve(
        bm25s.tokenize(queries, stopwords=None, show_progress=False), k=DEPTH, show_progress=False
    )
    lists = [(np.where(scores > 0, found, -1), scores)]
    if mode == "hybrid":
        index = faiss.IndexFlatIP(DIM)
        index.add(embed(passages))
        dense_scores, dense_ids = index.search(embed(queries), DEPTH)
        lists.append((dense_ids.astype(np.int64), dense_scores))
        ranked, fused = rrf(lists, len(queries))
    else:
        ranked, fused = lists[0]

    by_doc: dict[str, list[int]] = {}
    for i, (doc, _, _) in enumerate(chunks):
        by_doc.setdefault(doc, []).append(i)
    qrels, run = {}, {}
    for q, question in enumerate(questions):
        relevant = {}
        for span in question["evidence"]:
            for i in by_doc.get(span["doc_id"], []):
                _, s, e = chunks[i]
                overlap = min(e, span["end"]) - max(s, span["start"])
                if overlap > 0 and overlap >= 0.5 * min(e - s, span["end"] - span["start"]):
                    relevant[f"c{i}"] = 1
        qrels[question["id"]] = relevant or {"none": 0}
        run[question["id"]] = {f"c{c}": float(s) for c, s in zip(ranked[q], fused[q], strict=True) if c >= 0}
    cut = ",".join(map(str, KS))
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {f"recall.{cut}", f"ndcg_cut.{cut}", "recip_rank"})
    per_question = evaluator.evaluate(run)
    names = sorted(next(iter(per_question.values())))
    means = {name: float(np.mean([row[name] for row in per_question.values()])) for name in names}
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "run.trec", "w") as handle:
        for qid, row in run.items():
            for rank, (chunk, score) in enumerate(sorted(row.items(), key=lambda x: -x[1]), 1):
                handle.write(f"{qid} Q0 {chunk} {rank} {score:.6f} plain\n")
    (out / "metrics.json").write_text(json.dumps({"chunks": len(chunks), "metrics": means}, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3])
