import math

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_bench.importers.trec import read_trec_run
from rag_bench.score.documents import FAMILIES, document_metrics, document_run, rankings_run, trec_run

NAN = float("nan")
PAD = -np.inf


def _oracle(run: dict, judgements: list[dict], qids: list[str], ks: list[int]) -> dict[str, dict[str, float]]:
    """pytrec_eval's values in our names, for the questions with at least one judgement."""
    cut = ",".join(str(k) for k in sorted(set(ks)))
    measures = {f"ndcg_cut.{cut}", f"map_cut.{cut}", f"P.{cut}", f"recall.{cut}", f"success.{cut}", "recip_rank"}
    qrels = {q: dict(j) for q, j in zip(qids, judgements, strict=True) if j}
    raw = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate({q: run[q] for q in qrels})
    out = {}
    for qid, values in raw.items():
        rr = values["recip_rank"]
        first = round(1 / rr) if rr > 0 else math.inf
        row = {}
        for k in ks:
            row[f"hit@{k}"] = values[f"success_{k}"]
            row[f"recall@{k}"] = values[f"recall_{k}"]
            row[f"mrr@{k}"] = rr if first <= k else 0.0
            row[f"ndcg@{k}"] = values[f"ndcg_cut_{k}"]
            row[f"map@{k}"] = values[f"map_cut_{k}"]
            row[f"precision@{k}"] = values[f"P_{k}"]
        out[qid] = row
    return out


def _check_against_oracle(ranked, scores, chunk_docs, judgements, ks):
    qids = [f"q{i}" for i in range(len(judgements))]
    run = document_run(ranked, scores, chunk_docs)
    ours = document_metrics(run, judgements, ks)
    expected = _oracle(trec_run(run, qids), judgements, qids, ks)
    assert set(ours) == {f"{f}@{k}" for f in FAMILIES for k in ks}
    for q, qid in enumerate(qids):
        for name, values in ours.items():
            want = expected[qid][name] if qid in expected else 0.0
            assert values[q] == pytest.approx(want, abs=1e-12), (qid, name)


def test_document_ranks_where_its_first_chunk_ranks():
    # chunks 0..4 belong to documents b, a, b, c, a
    ranked = np.array([[2, 0, 1, 4, 3, -1]])
    scores = np.array([[0.9, 0.8, 0.7, 0.6, 0.5, PAD]])
    run = document_run(ranked, scores, ["b", "a", "b", "c", "a"])
    assert run.doc_ids == ("a", "b", "c")
    assert run.ranked.tolist() == [[1, 0, 2]]  # b (chunk 2, 0.9), a (chunk 1, 0.7), c (0.5)
    assert run.scores.tolist() == [[0.9, 0.7, 0.5]]


def test_tied_documents_keep_the_chunk_lists_order():
    # all tied: the chunk list's order (corpus order) is the ranking, d1, d10, d9; trec_eval would
    # order the tie d9 > d10 > d1 (docno descending), so the run handed to it steps down in float32
    ranked = np.array([[0, 1, 2], [-1, -1, -1]])
    scores = np.array([[1.0, 1.0, 1.0], [PAD, PAD, PAD]])
    run = document_run(ranked, scores, ["d1", "d10", "d9"])
    assert [run.doc_ids[d] for d in run.ranked[0]] == ["d1", "d10", "d9"]
    assert run.ranked[1].tolist() == [-1, -1, -1]
    assert np.isnan(run.scores[1]).all()
    below = float(np.nextafter(np.float32(1.0), np.float32(0.0)))  # 0.99999994, the next float32 down
    below2 = float(np.nextafter(np.float32(below), np.float32(0.0)))
    assert trec_run(run, ["x", "y"]) == {"x": {"d1": 1.0, "d10": below, "d9": below2}, "y": {}}
    m = document_metrics(run, [{"d9": 1}, {}], [3])
    assert m["mrr@3"][0] == 1 / 3  # d9 ranks third, as shown; pytrec_eval on trec_run agrees
    assert _oracle(trec_run(run, ["x", "y"]), [{"d9": 1}, {}], ["x", "y"], [3])["x"]["mrr@3"] == 1 / 3


def test_metrics_hand_worked_graded():
    # ranking x (unjudged), b (grade 2), a (grade 1); judged: a=1, b=2, c=0, z=3 (never retrieved)
    run = document_run(np.array([[0, 1, 2]]), np.array([[3.0, 2.0, 1.0]]), ["x", "b", "a"])
    m = document_metrics(run, [{"a": 1, "b": 2, "c": 0, "z": 3}], [1, 2, 3, 10])
    dcg3 = 2 / math.log2(3) + 1 / math.log2(4)
    idcg3 = 3 + 2 / math.log2(3) + 1 / math.log2(4)
    assert m["ndcg@1"][0] == 0.0
    assert m["ndcg@2"][0] == pytest.approx((2 / math.log2(3)) / (3 + 2 / math.log2(3)), abs=1e-15)
    assert m["ndcg@3"][0] == pytest.approx(dcg3 / idcg3, abs=1e-15)
    assert m["ndcg@10"][0] == pytest.approx(dcg3 / idcg3, abs=1e-15)
    assert m["map@3"][0] == pytest.approx((1 / 2 + 2 / 3) / 3, abs=1e-15)
    assert m["recall@2"][0] == pytest.approx(1 / 3)
    assert m["precision@10"][0] == pytest.approx(2 / 10)  # divides by k even past the list
    assert (m["mrr@1"][0], m["mrr@2"][0], m["hit@1"][0], m["hit@2"][0]) == (0.0, 0.5, 0.0, 1.0)


def test_no_relevant_or_nothing_retrieved_scores_zero():
    run = document_run(np.array([[0, 1], [-1, -1]]), np.array([[1.0, 0.5], [PAD, PAD]]), ["a", "b"])
    m = document_metrics(run, [{"a": 0, "b": -1}, {"a": 2}], [1, 5])
    assert all(values.tolist() == [0.0, 0.0] for values in m.values())


def test_the_list_order_is_the_ranking_whatever_the_scores():
    # a chunk scored -inf (below a reranker's depth) still ranks where the list puts it, before padding
    run = document_run(np.array([[0, 1, -1]]), np.array([[-np.inf, 1.0, PAD]]), ["a", "b"])
    assert run.ranked.tolist() == [[0, 1]]
    assert run.scores.tolist() == [[-np.inf, 1.0]]
    assert trec_run(run, ["q"]) == {"q": {"a": 0.0, "b": -(2.0**-149)}}  # strictly decreasing in float32


def test_nan_scores_are_rejected():
    with pytest.raises(ValueError, match="NaN"):
        document_run(np.array([[0]]), np.array([[NAN]]), ["a"])


def test_k_must_be_positive_and_judgements_match_questions():
    run = document_run(np.array([[0]]), np.array([[1.0]]), ["a"])
    with pytest.raises(ValueError, match="judgement sets"):
        document_metrics(run, [], [1])
    with pytest.raises(ValueError, match="cut-off"):
        document_metrics(run, [{"a": 1}], [0])


@st.composite
def cases(draw):
    n_docs = draw(st.integers(1, 12))
    docs = [f"d{i}" for i in range(n_docs)]  # d10 sorts before d2: string order matters
    chunk_docs = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=20))
    n_questions = draw(st.integers(1, 5))
    width = draw(st.integers(1, 12))
    ranked = np.full((n_questions, width), -1, dtype=np.int64)
    scores = np.full((n_questions, width), PAD)
    judgements = []
    for q in range(n_questions):
        chosen = draw(st.lists(st.integers(0, len(chunk_docs) - 1), unique=True, max_size=width))
        values = draw(
            st.lists(st.sampled_from([-np.inf, 0.0, 0.25, 0.5, 1.0, 2.0]), min_size=len(chosen), max_size=len(chosen))
        )
        if draw(st.booleans()):  # usually best first; otherwise a later chunk may outscore the first
            values = sorted(values, reverse=True)
        ranked[q, : len(chosen)] = chosen
        scores[q, : len(chosen)] = values
        pool = [*docs, "unretrievable"]
        judgements.append(draw(st.dictionaries(st.sampled_from(pool), st.integers(-1, 3), max_size=6)))
    ks = draw(st.lists(st.sampled_from([1, 2, 3, 5, 10, 20]), min_size=1, max_size=4, unique=True))
    return ranked, scores, chunk_docs, judgements, ks


@settings(max_examples=300, deadline=None)
@given(cases())
def test_equals_pytrec_eval_on_generated_runs(case):
    _check_against_oracle(*case)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equals_pytrec_eval_on_seeded_random_runs(seed):
    rng = np.random.default_rng(seed)
    n_questions, n_chunks, width = 150, 400, 60
    chunk_docs = [f"doc{i}" for i in rng.integers(0, 120, n_chunks)]
    ranked = np.full((n_questions, width), -1, dtype=np.int64)
    scores = np.full((n_questions, width), PAD)
    judgements = []
    for q in range(n_questions):
        depth = int(rng.integers(0, width + 1))
        ranked[q, :depth] = rng.choice(n_chunks, depth, replace=False)
        scores[q, :depth] = np.sort(rng.integers(0, 8, depth) / 4)[::-1]  # many ties
        judged = rng.choice(130, int(rng.integers(0, 12)), replace=False)  # doc120+ never retrieved
        judgements.append({f"doc{d}": int(g) for d, g in zip(judged, rng.integers(0, 4, len(judged)), strict=True)})
    _check_against_oracle(ranked, scores, chunk_docs, judgements, [1, 3, 10, 50, 100])


def test_trec_run_file_scores_like_pytrec_eval(tmp_path):
    path = tmp_path / "run.trec"
    path.write_text("q1 Q0 d2 1 0.5 x\nq1 Q0 d10 2 0.5 x\nq1 Q0 d1 3 0.9 x\nq2 Q0 d1 1 1 x\n", encoding="utf-8")
    rankings = read_trec_run(path)
    run = rankings_run(rankings, ["q1", "q2", "q3"])  # q3 retrieved nothing
    assert [[run.doc_ids[d] for d in row if d >= 0] for row in run.ranked] == [["d1", "d2", "d10"], ["d1"], []]
    judgements = [{"d10": 2, "d2": 1}, {"d3": 1}, {"d1": 1}]
    ours = document_metrics(run, judgements, [1, 2, 10])
    expected = _oracle(trec_run(run, ["q1", "q2", "q3"]), judgements, ["q1", "q2", "q3"], [1, 2, 10])
    for name, values in ours.items():
        assert values.tolist() == pytest.approx([expected[q][name] for q in ("q1", "q2", "q3")], abs=1e-12)
    assert ours["ndcg@2"][0] == pytest.approx((1 / math.log2(3)) / (2 + 1 / math.log2(3)), abs=1e-15)
