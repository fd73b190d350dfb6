"""An external document-level run on BEIR SciFact, scored by rag-bench and by pytrec_eval: the numbers must be equal.

Usage: python benchmarks/reproduce/scifact_external.py [--beir ../shared/datasets/scifact] [--depth 1000]

1. BM25 from another implementation (rank-bm25's BM25Okapi, k1 1.5, b 0.75, lower-cased \\w+ tokens of
   title + text) ranks the top ``depth`` abstracts of each test query; the ranking is written as a TREC
   run with document ids as docnos (``run.trec``, scores as Python reprs, so both readers parse the
   same floats).
2. rag-bench scores that file: ``retrieval=external retrieval.run=run.trec`` on the imported dataset.
3. pytrec_eval scores the same file against ``qrels/test.tsv`` read directly (not through rag-bench).
nDCG@10, Recall@100 and P@10 (and the rest at 10, 100, 1000) must agree to 1e-12, per query and in
the mean (trec_eval -c: every judged query counts). Exits 1 when any differs; 0 with a note when the
BEIR folder is absent.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
import time
from pathlib import Path

from rag_bench.core.cache import default_cache_dir

MEASURES = {"ndcg_cut": "ndcg", "recall": "recall", "P": "precision"}
KS = (10, 100, 1000)


def tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    return qrels


def bm25_run(beir: Path, qrels: dict, depth: int) -> dict[str, dict[str, float]]:
    """rank-bm25's top ``depth`` documents of each judged query."""
    import numpy as np
    from rank_bm25 import BM25Okapi

    corpus = read_jsonl(beir / "corpus.jsonl")
    ids = [str(d["_id"]) for d in corpus]
    index = BM25Okapi([tokens(f"{d.get('title', '')} {d['text']}") for d in corpus])
    queries = {str(q["_id"]): q["text"] for q in read_jsonl(beir / "queries.jsonl")}
    run = {}
    for qid in qrels:
        scores = index.get_scores(tokens(queries[qid]))
        top = np.argsort(-scores, kind="stable")[:depth]
        run[qid] = {ids[i]: float(scores[i]) for i in top}
    return run


def write_trec(run: dict[str, dict[str, float]], path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        for qid, docs in run.items():
            for rank, (doc, score) in enumerate(sorted(docs.items(), key=lambda d: -d[1]), start=1):
                out.write(f"{qid} Q0 {doc} {rank} {score!r} rank-bm25\n")


def read_trec(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    return run


def rag_bench(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "rag_bench", *args], check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", default=str(Path(__file__).resolve().parents[3] / "shared/datasets/scifact"))
    parser.add_argument("--out", default="results/runs/reproduce/scifact-external")
    parser.add_argument("--depth", type=int, default=1000)
    args = parser.parse_args()
    beir, out = Path(args.beir), Path(args.out)
    if not (beir / "qrels" / "test.tsv").is_file():
        print(f"skipped: no BEIR SciFact folder at {beir} (pass --beir)")
        return 0
    import pytrec_eval

    native = default_cache_dir() / "datasets" / "scifact"
    if not (native / "questions.jsonl").is_file():
        rag_bench("import", "beir", str(beir), str(native), "--split", "test", "--force")
    qrels = read_qrels(beir / "qrels" / "test.tsv")
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    write_trec(bm25_run(beir, qrels, args.depth), out / "run.trec")
    print(f"rank-bm25 run: {len(qrels)} queries, top {args.depth}, {time.perf_counter() - start:.1f} s")
    run_dir = out / "rag-bench"
    rag_bench(
        f"dataset.path={native}",
        "dataset.name=scifact",
        "chunker=fixed",
        "chunker.size=1000000",  # one chunk per abstract (the external run does not use them)
        "embedder=fake",
        "retrieval=external",
        f"retrieval.run={out / 'run.trec'}",
        f"retrieval.depth={args.depth}",
        f"ks=[{','.join(map(str, KS))}]",
        f"hydra.run.dir={run_dir}",
    )
    ours = json.loads((run_dir / "metrics.json").read_text())["metrics"]
    per_question = {row["question_id"]: row for row in csv.DictReader((run_dir / "per_question.csv").open())}
    cuts = ",".join(map(str, KS))
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {f"{m}.{cuts}" for m in MEASURES})
    theirs = evaluator.evaluate(read_trec(out / "run.trec"))
    worst = 0.0
    print("\n| measure | rag-bench | pytrec_eval |\n|---|---|---|")
    for measure, name in MEASURES.items():
        for k in KS:
            values = [theirs.get(q, {}).get(f"{measure}_{k}", 0.0) for q in qrels]
            mean = sum(values) / len(values)
            for q, value in zip(qrels, values, strict=True):
                worst = max(worst, abs(float(per_question[q][f"{name}@{k}"]) - value))
            worst = max(worst, abs(ours[f"{name}@{k}"] - mean))
            print(f"| {name}@{k} | {ours[f'{name}@{k}']:.6f} | {mean:.6f} |")
    print(f"\nlargest difference, per query and in the means: {worst:.3g}")
    return 0 if worst <= 1e-12 else 1


if __name__ == "__main__":
    sys.exit(main())
