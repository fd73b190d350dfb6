"""One tie rule: rag-bench's metrics, pytrec_eval on the run files it writes, and a read-back of those files agree.

The dataset is built for ties: documents come in groups of three with the same text, so BM25 scores a
group alike, and every document a question does not match scores 0 alike. Corpus order (b, c, a) is
neither document id order nor its reverse (trec_eval's tie order, docno descending, is c, b, a).
"""

import json
import math
import os
import subprocess
import sys

import pandas as pd
import pytest
import pytrec_eval

GROUPS = 5
KS = (1, 3, 5, 10)


def write_dataset(folder):
    folder.mkdir()
    docs, questions = [], []
    for g in range(GROUPS):
        text = f"alpha{g} beta{g} gamma common words to share"
        docs += [{"id": f"g{g}-{name}", "text": text} for name in ("b", "c", "a")]
        questions.append({"id": f"judged{g}", "question": f"alpha{g}", "judgements": {f"g{g}-a": 2, f"g{g}-c": 1}})
        questions.append({"id": f"span{g}", "question": f"beta{g}", "evidence": [{"doc_id": f"g{g}-a", "start": 0,
                                                                                  "end": 6}]})  # fmt: skip
    (folder / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    return docs, questions


def rag_bench(tmp_path, out, *args):
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache"), "RAG_BENCH_QUIET": "1"}
    common = [f"dataset.path={tmp_path / 'data'}", "embedder=fake", f"ks=[{','.join(map(str, KS))}]"]
    done = subprocess.run(
        [sys.executable, "-m", "rag_bench", *common, *args, f"hydra.run.dir={out}"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    table = pd.read_csv(out / "per_question.csv", dtype={"question_id": str}).set_index("question_id")
    return json.loads((out / "metrics.json").read_text())["metrics"], table


def read_run(path):
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        qid, _, docno, _, score, _ = line.split()
        run.setdefault(qid, {})[docno] = float(score)
    return run


def pytrec(run, qrels):
    """Our metric names -> per question values, from pytrec_eval on ``run`` (trec_eval: float32 scores)."""
    cut = ",".join(map(str, KS))
    measures = {f"ndcg_cut.{cut}", f"recall.{cut}", f"success.{cut}", "recip_rank"}
    raw = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate({q: run.get(q, {}) for q in qrels})
    out = {}
    for qid, v in raw.items():
        first = round(1 / v["recip_rank"]) if v["recip_rank"] > 0 else math.inf
        for k in KS:
            out[qid, f"ndcg@{k}"], out[qid, f"recall@{k}"] = v[f"ndcg_cut_{k}"], v[f"recall_{k}"]
            out[qid, f"hit@{k}"], out[qid, f"mrr@{k}"] = v[f"success_{k}"], v["recip_rank"] if first <= k else 0.0
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ties")
    docs, questions = write_dataset(tmp / "data")
    chunking = ["chunker=fixed", "chunker.size=100000", "chunker.overlap=0"]  # one chunk per document
    original = rag_bench(tmp, tmp / "run", "retrieval=bm25", *chunking)
    external = [f"retrieval.run={tmp / 'run' / name}" for name in ("run.trec", "run_documents.trec")]
    chunks = rag_bench(tmp, tmp / "chunks", "retrieval=external", external[0], *chunking)
    documents = rag_bench(tmp, tmp / "documents", "retrieval=external", external[1], *chunking)
    return tmp, docs, questions, original, chunks, documents


def test_the_ranking_shown_is_the_ranking_scored(runs):
    _, _, _, (metrics, table), _, _ = runs
    # "alpha0" matches g0-b, g0-c, g0-a alike: corpus order b, c, a (trec_eval's tie order would be c, b, a)
    assert json.loads(table.loc["judged0", "top_chunks"])[:3] == ["g0-b:0-40", "g0-c:0-40", "g0-a:0-40"]
    # grades a = 2 at rank 3, c = 1 at rank 2; ideal 2 then 1
    ideal = 2 + 1 / math.log2(3)
    assert table.loc["judged0", "ndcg@3"] == pytest.approx((1 / math.log2(3) + 2 / math.log2(4)) / ideal, abs=1e-15)
    assert (table.loc["judged0", "first_hit_rank"], table.loc["judged0", "mrr@10"]) == (2, 0.5)
    assert (table.loc["span0", "first_hit_rank"], table.loc["span0", "mrr@10"]) == (3, 1 / 3)  # g0-a third
    assert metrics["mrr@10"] == pytest.approx((0.5 + 1 / 3) / 2, abs=1e-15)


def test_pytrec_eval_on_either_file_equals_the_metrics(runs):
    tmp, docs, questions, (_, table), _, _ = runs
    chunk_of = {d["id"]: f"{d['id']}:0-{len(d['text'])}" for d in docs}  # the one chunk of each document
    judged = {q["id"]: q["judgements"] for q in questions if "judgements" in q}
    spans = {q["id"]: {q["evidence"][0]["doc_id"]: 1} for q in questions if "evidence" in q}
    on_documents = pytrec(read_run(tmp / "run" / "run_documents.trec"), judged)
    qrels = {q: {chunk_of[d]: g for d, g in j.items()} for q, j in {**judged, **spans}.items()}
    on_chunks = pytrec(read_run(tmp / "run" / "run.trec"), qrels)
    assert len(on_chunks) == 2 * GROUPS * 4 * len(KS)
    for (qid, name), value in on_chunks.items():
        assert table.loc[qid, name] == pytest.approx(value, abs=1e-12), (qid, name)
        if (qid, name) in on_documents:
            assert on_documents[qid, name] == pytest.approx(value, abs=1e-12), (qid, name)


def test_reading_either_file_back_gives_the_same_metrics(runs):
    _, _, _, (metrics, table), (chunk_metrics, chunk_table), (doc_metrics, doc_table) = runs
    assert chunk_metrics == metrics and doc_metrics == metrics
    columns = [c for c in table.columns if "@" in c]
    pd.testing.assert_frame_equal(chunk_table[columns], table[columns])
    pd.testing.assert_frame_equal(doc_table[columns], table[columns])
    assert (chunk_table["top_chunks"] == table["top_chunks"]).all()
