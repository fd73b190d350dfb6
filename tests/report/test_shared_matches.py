"""The evidence matches scoring made (``Evaluation.touching``), read again by the failure classes and the run page:
the same classes and the same page as matching the evidence anew."""

from dataclasses import replace

import numpy as np

from rag_bench.core.types import Dataset, Document
from rag_bench.report.run.view import Stage, run_view
from rag_bench.score.evaluate import evaluate
from rag_bench.score.failures import StageLists, diagnose
from rag_bench.score.relevance import ChunkLocator, touching
from tests.report.pages import BM25, CHUNKS, DENSE, DOCS, FUSED, QUESTIONS, facts, scores_of


def matches(tau=0.5):
    locator = ChunkLocator(CHUNKS)
    return [touching(locator, q.spans, tau) if q.has_evidence else None for q in QUESTIONS]


def test_evaluation_keeps_each_questions_matches():
    dataset = Dataset("hand", [Document(d, t) for d, t in DOCS.items()], QUESTIONS)
    found = evaluate(dataset, CHUNKS, FUSED, scores_of(FUSED), [1, 2], 0.5, resamples=10).touching
    assert found == matches()
    # by hand: "Then restart the service." [25, 50) touches chunk 0 (9 characters, no hit at tau 0.5) and
    # chunk 1 (16 of 25, a hit); the unlabelled question has none
    assert found[1] == {0: frozenset(), 1: frozenset({0})}
    assert found[-1] is None


def test_diagnose_with_the_matches_equals_matching_again():
    stages = StageLists({"bm25": BM25, "dense": DENSE}, FUSED)
    for k in (1, 2, 3):
        again = diagnose(CHUNKS, QUESTIONS, stages, tau=0.5, report_k=k)
        assert diagnose(CHUNKS, QUESTIONS, stages, tau=0.5, report_k=k, touched=matches()) == again


def test_page_with_the_matches_equals_matching_again():
    for k in (1, 2, 3):
        hand = facts(report_k=k)
        assert run_view(replace(hand, touching=matches())) == run_view(hand)
    # a list that holds a chunk twice ranks it where it is last; chunk 2 (faq.md [0, 40), the refunds evidence)
    # below the top 1 in every stage: beyond, at its best rank over the stages
    twice = np.array(FUSED)
    twice[2] = [3, 2, 1, 2]
    hand = replace(facts(report_k=1), stages=[*facts().stages[:2], Stage("fused", twice, scores_of(twice, 0.03))])
    view = run_view(replace(hand, touching=matches()))
    assert view == run_view(hand)
    (beyond,) = view["questions"][2]["beyond"]
    assert view["chunks"][beyond["chunk"]]["id"] == "faq.md:0-40"
    assert (beyond["hit"], beyond["ranks"]) == (True, [3, None, 4])
