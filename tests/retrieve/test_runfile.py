"""retrieval=external: TREC and JSONL run files, scored through the real pipeline (Hydra-composed)."""

import math

import numpy as np
import pytest
import pytrec_eval

from .conftest import rag_bench_cli, write_dataset, write_jsonl

KS = [1, 5, 10, 100]


def judged_dataset(tmp_path, judgements: dict[str, dict[str, int]], n_docs: int):
    documents = {f"d{i:02d}": f"Document {i} talks about topic {i % 7}." for i in range(n_docs)}
    questions = [{"id": qid, "question": f"question {qid}", "judgements": j} for qid, j in judgements.items()]
    return write_dataset(tmp_path / "judged", documents, questions)


def write_trec(path, run: dict[str, dict[str, float]], shuffle_seed: int | None = None):
    lines = [(qid, doc, score) for qid, docs in run.items() for doc, score in docs.items()]
    if shuffle_seed is not None:  # trec_eval orders by score, then docno: the file's order must not matter
        order = np.random.default_rng(shuffle_seed).permutation(len(lines))
        lines = [lines[i] for i in order]
    path.write_text("".join(f"{q} Q0 {d} {r} {s!r} other-bm25\n" for r, (q, d, s) in enumerate(lines, 1)))
    return path


def pytrec(run, qrels):
    measures = {"ndcg_cut.1,5,10,100", "recall.1,5,10,100", "P.1,5,10,100", "recip_rank"}
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)


def assert_equal_to_pytrec_eval(result, run, qrels):
    expected = pytrec(run, qrels)
    table = result.evaluation.per_question.set_index("question_id")
    names = {"ndcg": "ndcg_cut", "recall": "recall", "precision": "P"}
    for qid in qrels:
        for ours, theirs in names.items():
            for k in KS:
                want = expected[qid][f"{theirs}_{k}"] if qid in expected else 0.0  # not in the run: nothing retrieved
                assert table.at[qid, f"{ours}@{k}"] == pytest.approx(want, abs=1e-12), (qid, ours, k)
    for name in ("ndcg@10", "recall@100", "precision@10"):  # trec_eval -c: a query missing from the run scores 0
        metric, k = name.split("@")
        means = [expected[q][f"{names[metric]}_{k}"] if q in expected else 0.0 for q in qrels]
        assert result.evaluation.summary[name].mean == pytest.approx(float(np.mean(means)), abs=1e-12)


def test_document_level_trec_run_scores_as_pytrec_eval_with_ties(tmp_path, run_with):
    qrels = {"q1": {"d01": 2, "d02": 1, "d09": 1}, "q2": {"d03": 1}, "q3": {"d05": 3}}
    # q1: d02 and d10 tie (docno descending: d10 first), d01 scores highest; q3 is not in the run
    run = {"q1": {"d02": 0.5, "d10": 0.5, "d01": 0.9, "d04": 0.1}, "q2": {"d04": 2.0, "d03": 1.0}}
    data = judged_dataset(tmp_path, qrels, 12)
    path = write_trec(tmp_path / "run.trec", run, shuffle_seed=0)
    result = run_with(f"dataset.path={data}", "retrieval=external", f"retrieval.run={path}", f"ks={KS}")
    assert_equal_to_pytrec_eval(result, run, qrels)
    table = result.evaluation.per_question.set_index("question_id")
    assert table.at["q1", "top_chunks"][:3] == ["d01:0-31", "d10:0-32", "d02:0-31"]  # score, then docno descending
    # by hand: q1 gains 2 (d01), 0 (d10), 1 (d02) / ideal 2, 1, 1
    dcg, idcg = 2 + 1 / math.log2(4), 2 + 1 / math.log2(3) + 1 / math.log2(4)
    assert table.at["q1", "ndcg@10"] == pytest.approx(dcg / idcg, abs=1e-15)
    details = result.stats.retrieval["external"]
    assert details["unmentioned"] == 1 and details["unmentioned_ids"] == ["q3"]
    assert details["document_level"] == 6 and details["span_level"] == 0 and details["format"] == "trec"
    assert result.stats.retriever == f"external {path}"


@pytest.mark.parametrize("seed", [1, 2])
def test_seeded_random_document_runs_score_as_pytrec_eval(tmp_path, run_with, seed):
    rng = np.random.default_rng(seed)
    n_docs, qrels, run = 60, {}, {}
    for q in range(25):
        judged = rng.choice(n_docs + 8, int(rng.integers(1, 10)), replace=False)  # some ids are never retrieved
        grades = {f"d{d:02d}": int(g) for d, g in zip(judged, rng.integers(0, 4, len(judged)), strict=True)}
        grades[f"d{int(judged[0]):02d}"] = int(rng.integers(1, 4))  # at least one relevant document
        qrels[f"q{q}"] = {d: g for d, g in grades.items() if int(d[1:]) < n_docs + 8}
        if q % 6 == 5:
            continue  # not in the run
        docs = rng.choice(n_docs, int(rng.integers(0, n_docs)), replace=False)
        run[f"q{q}"] = {f"d{d:02d}": float(s) for d, s in zip(docs, rng.integers(0, 6, len(docs)) / 2, strict=True)}
    documents = {f"d{i:02d}": f"Document {i} talks about topic {i % 7}." for i in range(n_docs + 8)}
    questions = [{"id": qid, "question": qid, "judgements": j} for qid, j in qrels.items()]
    data = write_dataset(tmp_path / "random", documents, questions)
    path = write_trec(tmp_path / "run.txt", run, shuffle_seed=seed)
    result = run_with(f"dataset.path={data}", "retrieval=external", f"retrieval.run={path}", f"ks={KS}")
    assert_equal_to_pytrec_eval(result, run, qrels)


def test_chunk_id_docnos_are_scored_at_span_level(tiny, tmp_path, run_with):
    # q1's evidence is a.md [19, 58); chunk a.md:0-17 misses it, a.md:19-58 hits; q2: b.md:37-73 repeats its span
    path = tmp_path / "run.trec"
    path.write_text("q1 Q0 a.md:0-17 1 3.0 x\nq1 Q0 a.md:19-58 2 2.0 x\nq2 Q0 b.md:37-73 1 1.0 x\nq2 Q0 b.md 2 0.5 x\n")
    result = run_with(f"dataset.path={tiny}", "retrieval=external", f"retrieval.run={path}", "ks=[1,2]")
    table = result.evaluation.per_question.set_index("question_id")
    assert table.at["q1", "hit@1"] == 0.0 and table.at["q1", "hit@2"] == 1.0 and table.at["q1", "mrr@2"] == 0.5
    assert table.at["q2", "hit@1"] == 0.0  # same words, other characters: offsets are what count
    assert table.at["q2", "hit@2"] == 1.0  # the whole of b.md holds the span
    assert table.at["q3", "hit@2"] == 0.0 and table.at["q3", "top_chunks"] == []
    details = result.stats.retrieval["external"]
    assert (details["span_level"], details["document_level"], details["unmentioned_ids"]) == (3, 1, ["q3"])


def test_jsonl_run_by_text_and_offsets_with_unmentioned_questions(tiny, tmp_path, run_with):
    rows = [
        {"question_id": "q2", "results": [{"doc_id": "b.md", "text": "Aphids were counted on sticky traps."}]},
        {
            "question_id": "q1",
            "results": [
                {"doc_id": "c.md", "start": 0, "end": 20},
                {"doc_id": "a.md", "text": "The ingest certificate  expired\nat noon."},
            ],
        },
    ]
    path = write_jsonl(tmp_path / "run.jsonl", rows)
    result = run_with(f"dataset.path={tiny}", "retrieval=external", f"retrieval.run={path}", "ks=[1,2]")
    table = result.evaluation.per_question.set_index("question_id")
    assert table.at["q1", "top_chunks"] == ["c.md:0-20", "a.md:19-58"] and table.at["q1", "mrr@2"] == 0.5
    assert table.at["q2", "hit@1"] == 1.0 and table.at["q3", "hit@2"] == 0.0
    assert result.evaluation.summary["hit@2"].mean == pytest.approx(2 / 3)
    details = result.stats.retrieval["external"]
    assert details["format"] == "jsonl" and details["unmentioned_ids"] == ["q3"]
    assert (details["by_offsets"], details["located_exact"], details["located_tolerant"], details["ambiguous"]) == (
        1,
        1,
        1,
        1,
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"question_id": "q9", "results": []}, "run.jsonl:2: question_id: question 'q9' is not in the dataset"),
        ({"question_id": "q1", "results": []}, "run.jsonl:2: question_id: question 'q1' has a line already"),
        ({"question_id": "q2"}, "run.jsonl:2: results: missing (fix: add the question's results"),
        ({"question_id": "q2", "hits": []}, "run.jsonl:2: hits: unknown field 'hits'"),
        (
            {"question_id": "q2", "results": [{"doc_id": "b.md", "text": "Ants"}]},
            "run.jsonl:2: results[0].text: text 'Ants' does not occur in document 'b.md'",
        ),
    ],
)
def test_run_file_errors_name_the_line_and_the_fix(tiny, tmp_path, run_with, line, message):
    from rag_bench.core.errors import DataError

    path = write_jsonl(tmp_path / "run.jsonl", [{"question_id": "q1", "results": []}, line])
    with pytest.raises(DataError) as err:
        run_with(f"dataset.path={tiny}", "retrieval=external", f"retrieval.run={path}")
    assert str(err.value).startswith(str(tmp_path / message.split(":")[0]) + message[len("run.jsonl") :].split(" (")[0])
    assert "(fix: " in str(err.value)


def test_trec_errors_name_the_line(tiny, tmp_path, run_with):
    from rag_bench.core.errors import DataError

    cases = {
        "q1 Q0 a.md 1 0.5\n": "has 5 fields, expected 6",
        "q1 Q0 z.md 1 0.5 x\n": "docno: docno 'z.md' is neither a document id of the dataset nor a chunk id",
        "q1 Q0 a.md 1 nan x\n": "score: score 'nan' is not a finite number",
        "q1 Q0 a.md 1 1 x\nq1 Q0 a.md:0-85 2 1 x\n": "docno: lists 'a.md:0-85' twice for 'q1'",
        "q7 Q0 a.md 1 1 x\n": "question_id: question 'q7' is not in the dataset",
    }
    for text, message in cases.items():
        path = tmp_path / "run.trec"
        path.write_text("q2 Q0 b.md 1 1 x\n" + text)
        with pytest.raises(DataError, match=message) as err:
            run_with(f"dataset.path={tiny}", "retrieval=external", f"retrieval.run={path}")
        line = 3 if text.count("\n") == 2 else 2
        assert str(err.value).startswith(f"{path}:{line}: "), text


def test_cli_prints_one_line_and_exits_2(tiny, tmp_path):
    path = write_jsonl(
        tmp_path / "run.jsonl", [{"question_id": "q1", "results": [{"doc_id": "x.md", "start": 0, "end": 5}]}]
    )
    done = rag_bench_cli(
        f"dataset.path={tiny}", "embedder=fake", "retrieval=external", f"retrieval.run={path}", cache=tmp_path / "c"
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"rag-bench: error: {path}:1: results[0].doc_id: unknown document 'x.md' "
        "(fix: use the dataset's document ids (documents.jsonl id, or path under docs/))"
    ]
    missing = rag_bench_cli(f"dataset.path={tiny}", "retrieval=external", cache=tmp_path / "c")
    assert missing.returncode == 2 and "retrieval=external needs the run file: retrieval.run=FILE" in missing.stderr
    assert "Traceback" not in done.stderr + missing.stderr


def test_a_rag_bench_run_file_rescored_gives_the_same_lists_and_metrics(tiny, tmp_path, run_with):
    from rag_bench.report.run.outputs import write_run

    first = run_with(f"dataset.path={tiny}", "retrieval=bm25", "ks=[1,3]", "chunker=fixed", "chunker.size=30")
    write_run(first, tmp_path / "bm25")
    trec = (tmp_path / "bm25" / "run.trec").read_text().splitlines()
    q2 = [line.split() for line in trec if line.startswith("q2 ")]
    # q2's second and third chunks tie in BM25; run.trec lowers the third by an ulp, so that trec_eval's
    # order (score, then docno descending: b.md:30-59 first) cannot undo rag-bench's (corpus order)
    assert [row[2] for row in q2] == ["c.md:60-82", "b.md:0-29", "b.md:30-59"]
    assert float(q2[1][4]) > float(q2[2][4]) and first.scores[1][1] == first.scores[1][2]
    again = run_with(
        f"dataset.path={tiny}", "retrieval=external", f"retrieval.run={tmp_path / 'bm25' / 'run.trec'}", "ks=[1,3]"
    )
    before = first.evaluation.per_question["top_chunks"].tolist()
    assert again.evaluation.per_question["top_chunks"].tolist() == before
    for name, summary in first.evaluation.summary.items():
        if name != "precision_omega":  # over the chunks a run returned, not the chunker's (README)
            assert again.evaluation.summary[name].mean == summary.mean, name


def test_a_rank_bm25_document_run_scores_as_pytrec_eval(tmp_path, run_with):
    """The SciFact check in miniature (benchmarks/reproduce/scifact_external.py): another BM25's run file."""
    import re

    from rank_bm25 import BM25Okapi

    documents = {
        "s1": "Aspirin lowers the risk of heart attack in adults.",
        "s2": "Aspirin causes stomach bleeding in some adults.",
        "s3": "Statins lower cholesterol and the risk of stroke.",
        "s4": "Regular exercise lowers blood pressure.",
        "s5": "Vitamin D does not prevent fractures in older adults.",
        "s6": "Heart attack risk rises with blood pressure.",
    }
    qrels = {"a": {"s1": 1, "s6": 1}, "b": {"s3": 2}, "c": {"s5": 1, "s2": 1}}
    questions = {"a": "aspirin heart attack risk", "b": "statins stroke", "c": "vitamin D fractures adults"}
    tokens = [re.findall(r"\w+", t.lower()) for t in documents.values()]
    index, ids = BM25Okapi(tokens), list(documents)
    run = {
        q: dict(zip(ids, map(float, index.get_scores(text.lower().split())), strict=True))
        for q, text in questions.items()
    }
    rows = [{"id": q, "question": questions[q], "judgements": j} for q, j in qrels.items()]
    data = write_dataset(tmp_path / "mini", documents, rows)
    path = write_trec(tmp_path / "bm25.trec", run)
    result = run_with(f"dataset.path={data}", "retrieval=external", f"retrieval.run={path}", f"ks={KS}")
    assert_equal_to_pytrec_eval(result, run, qrels)
