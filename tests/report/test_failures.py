"""Each failure class on a hand-made corpus: documents a, b (chunks [0, 50) and [50, 100)) and c ([0, 50))."""

import numpy as np
import pytest

from rag_bench.core.types import Chunk, Dataset, Document, Lost, Question, Span
from rag_bench.score.evaluate import evaluate
from rag_bench.score.failures import CLASSES, StageLists, diagnose, failure_counts

TEXT = "x" * 100
CHUNKS = [
    Chunk("a", 0, 50, TEXT[:50]),  # 0
    Chunk("a", 50, 100, TEXT[50:]),  # 1
    Chunk("b", 0, 50, TEXT[:50]),  # 2
    Chunk("b", 50, 100, TEXT[50:]),  # 3
    Chunk("c", 0, 50, TEXT[:50]),  # 4
]
K = 2  # report_k


def span_question(qid, doc, start, end, category=None):
    return Question(qid, f"question {qid}", spans=(Span(doc, start, end),), category=category)


# question -> (bm25, dense, fused, reranked) lists; the expected class is the question id
CASES = {
    # a[0, 40) is hit by chunk 0 (overlap 40 >= 0.5 * 40), which the reranked top 2 holds
    "hit": (span_question("hit", "a", 0, 40), [0, 2, -1], [0, 3, -1], [0, 2, 3], [0, 2, 3]),
    # the fused list has chunk 0 at rank 2 (within k); the reranker moves it to rank 3
    "reranked-out": (span_question("reranked-out", "a", 0, 40), [0, 2, -1], [2, 3, -1], [2, 0, 3], [2, 3, 0]),
    # b[50, 90) is hit by chunk 3: bm25 has it at rank 3 (within its depth), fusion puts it at 4
    "fused-out": (span_question("fused-out", "b", 50, 90), [4, 0, 3], [0, 1, 4], [0, 4, 1, 3], [0, 1, 4, 3]),
    # a[35, 70): chunk 0 overlaps it by 15 < 0.5 * 35 (touches, no hit); chunk 1 (overlap 20) would hit
    # but no list holds it: the cut at 50 fell through the evidence
    "boundary": (span_question("boundary", "a", 35, 70), [0, 2, 4], [2, 4, -1], [2, 4, 0], [2, 0, 4]),
    # c[0, 40): no list holds a chunk of document c
    "wrong-document": (span_question("wrong-document", "c", 0, 40), [0, 1, 2], [3, 2, -1], [0, 2, 1, 3], [0, 2, 1]),
    # b[0, 20): chunk 3 (b, from 50) is a candidate of document b, but nothing touches [0, 20)
    "not-retrieved": (span_question("not-retrieved", "b", 0, 20), [3, 0, -1], [1, 3, -1], [3, 1, 0], [3, 1, 0]),
    "unlabelled": (Question("unlabelled", "no labels"), [0, -1, -1], [0, -1, -1], [0], [0]),
    # the parse lost its excerpt: no chunk can hold it, whatever the lists
    "lost-by-parser": (Question("lost-by-parser", "?", lost=(Lost("a", "gone"),)), [0, 1, 2], [0, 2, -1], [0], [0]),
}


def stage_lists(rows, reranker=True):
    """StageLists from per-question (bm25, dense, fused, reranked) rows, -1 padded to equal widths."""

    def matrix(column):
        width = max(len(r[column]) for r in rows)
        return np.array([r[column] + [-1] * (width - len(r[column])) for r in rows])

    first = {"bm25": matrix(0), "dense": matrix(1)}
    return StageLists(first, matrix(2), matrix(3) if reranker else None)


def test_each_class_on_a_hand_made_fixture():
    questions = [case[0] for case in CASES.values()]
    stages = stage_lists([list(case[1:]) for case in CASES.values()])
    found = diagnose(CHUNKS, questions, stages, tau=0.5, report_k=K)
    assert [d.failure for d in found] == list(CASES)
    # below-k needs one index alone (next test); the step classes are in test_failures_steps.py
    assert set(CLASSES) == set(CASES) | {"below-k", "crowded-out", "diversified-out", "expanded-out"}
    # evidence ranks per stage: the first chunk that hits, from 1
    assert found[1].ranks == {"bm25": 1, "dense": None, "fused": 2, "reranked": 3}
    assert found[2].ranks == {"bm25": 3, "dense": None, "fused": 4, "reranked": 4}
    assert found[3].ranks == dict.fromkeys(["bm25", "dense", "fused", "reranked"])  # touching is not hitting


def test_without_a_reranker_nothing_is_reranked_out():
    rows = [list(CASES["reranked-out"][1:])]
    found = diagnose(CHUNKS, [CASES["reranked-out"][0]], stage_lists(rows, reranker=False), tau=0.5, report_k=K)
    assert found[0].failure == "hit"  # the fused list is final: chunk 0 at rank 2
    assert found[0].ranks == {"bm25": 1, "dense": None, "fused": 2}


def test_one_index_alone_that_ranks_the_evidence_below_k_is_below_k_not_fused_out():
    bm25 = np.array([[4, 0, 3]])  # the hit (chunk 3) at rank 3, below k = 2; nothing was fused
    stages = StageLists({"bm25": bm25}, bm25)
    (found,) = diagnose(CHUNKS, [span_question("q", "b", 50, 90)], stages, tau=0.5, report_k=K)
    assert (found.failure, found.ranks) == ("below-k", {"bm25": 3})
    # an external retriever gives only its final list: the same
    (found,) = diagnose(CHUNKS, [span_question("q", "b", 50, 90)], StageLists({}, bm25), tau=0.5, report_k=K)
    assert (found.failure, found.ranks) == ("below-k", {"fused": 3})


def test_tau_decides_between_hit_and_boundary():
    question, lists = span_question("q", "a", 35, 70), np.array([[0, 2]])
    stages = StageLists({"bm25": lists}, lists)
    assert diagnose(CHUNKS, [question], stages, tau=0.5, report_k=K)[0].failure == "boundary"  # 15 < 17.5
    assert diagnose(CHUNKS, [question], stages, tau=0.4, report_k=K)[0].failure == "hit"  # 15 >= 14


def judged(qid, grades):
    return Question(qid, f"question {qid}", judgements=grades)


def test_document_judgements_by_relevant_documents():
    questions = [
        judged("hit", {"b": 1}),
        judged("reranked-out", {"b": 1}),  # fused documents a, b; reranked a, c, b: b drops out of the top 2
        judged("fused-out", {"c": 2}),  # bm25 holds c (chunk rank 3, document rank 2); fused top 2 is a, b
        judged("wrong-document", {"c": 1, "a": 0}),  # grade 0 is not relevant; nothing holds c
    ]
    rows = [
        [[2, 0, -1], [2, -1, -1], [2, 0], [2, 0]],
        [[0, 2, -1], [4, -1, -1], [0, 2, 4], [0, 1, 4, 2]],
        [[0, 1, 4], [2, 3, -1], [0, 1, 2, 3, 4], [2, 0, 1, 3, 4]],
        [[0, 2, -1], [1, 3, -1], [0, 2, 1, 3], [0, 2, 1, 3]],
    ]
    found = diagnose(CHUNKS, questions, stage_lists(rows), tau=0.5, report_k=K)
    assert [d.failure for d in found] == ["hit", "reranked-out", "fused-out", "wrong-document"]
    assert found[1].ranks == {"bm25": 2, "dense": None, "fused": 2, "reranked": 3}  # document ranks
    assert found[2].ranks["bm25"] == 2


def test_judged_hit_follows_the_metrics_document_order_and_agrees_with_hit_at_k():
    # chunks of a and b tie on score: tied documents keep the list's order (one tie rule), so a is first
    question = judged("q", {"a": 1})
    final, scores = np.array([[0, 2]]), np.array([[1.0, 1.0]])
    tied = StageLists({"bm25": final}, final, final_scores=scores)
    assert diagnose(CHUNKS, [question], tied, tau=0.5, report_k=1)[0].failure == "hit"
    dataset = Dataset("d", tuple(Document(d, TEXT) for d in "abc"), (question,))
    assert evaluate(dataset, CHUNKS, final, scores, ks=[1], tau=0.5, resamples=10).per_question["hit@1"][0] == 1.0
    # the same without scores
    assert diagnose(CHUNKS, [question], StageLists({"bm25": final}, final), tau=0.5, report_k=1)[0].failure == "hit"
    # a relevant document second in the list is second whatever the scores say
    later = judged("r", {"b": 1})
    assert diagnose(CHUNKS, [later], tied, tau=0.5, report_k=1)[0].failure == "below-k"  # one index: no fusion


def test_span_hits_agree_with_the_metrics_hit_at_k():
    questions = [case[0] for case in CASES.values() if case[0].spans]
    stages = stage_lists([list(case[1:]) for case in CASES.values() if case[0].spans])
    dataset = Dataset("d", tuple(Document(d, TEXT) for d in "abc"), tuple(questions))
    final = stages.final
    table = evaluate(dataset, CHUNKS, final, -np.arange(final.shape[1]) * np.ones(final.shape), [K], 0.5, 10)
    found = diagnose(CHUNKS, questions, stages, tau=0.5, report_k=K)
    assert [d.failure == "hit" for d in found] == list(table.per_question[f"hit@{K}"] == 1.0)


def test_counts_per_class_and_category():
    counts = failure_counts(["hit", "boundary", "hit", "unlabelled"], ["x", "y", None, "x"])
    assert counts["all"] == {**dict.fromkeys(CLASSES, 0), "hit": 2, "boundary": 1, "unlabelled": 1}
    assert counts["x"]["hit"] == 1 and counts["x"]["unlabelled"] == 1 and counts["(none)"]["hit"] == 1
    assert list(counts) == ["all", "x", "y", "(none)"]


def test_report_k_must_be_positive():
    with pytest.raises(ValueError, match="report_k"):
        diagnose(CHUNKS, [], StageLists({}, np.zeros((0, 1), int)), tau=0.5, report_k=0)
