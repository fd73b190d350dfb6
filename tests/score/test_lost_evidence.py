"""Evidence lost by the parser: a miss for every span metric, evidence survival, and its failure class."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rag_bench.core.types import Chunk, Dataset, Document, Lost, Question, Span
from rag_bench.score.evaluate import evaluate
from rag_bench.score.failures import LOST, StageLists, diagnose

DOC = Document("a.pdf", "x" * 100, parser="pypdf")
CHUNKS = [Chunk("a.pdf", 0, 50, "x" * 50), Chunk("a.pdf", 50, 100, "x" * 50)]


def _evaluate(question: Question) -> dict:
    dataset = Dataset("d", (DOC,), (question,))
    ranked, scores = np.array([[0, 1]]), np.array([[2.0, 1.0]])
    evaluation = evaluate(dataset, CHUNKS, ranked, scores, ks=[1, 2], tau=0.5, resamples=10)
    return evaluation.per_question.iloc[0].to_dict()


def test_one_located_span_hit_and_one_lost_excerpt():
    # span [10, 30) (20 chars) is hit by chunk 0; the lost excerpt has 30 characters
    row = _evaluate(Question("q", "?", spans=(Span("a.pdf", 10, 30),), lost=(Lost("a.pdf", "y" * 30),)))
    assert row["n_spans"] == 2
    assert row["recall@1"] == 0.5 and row["hit@1"] == 1.0
    assert row["ndcg@2"] == pytest.approx(1 / (1 + 1 / math.log2(3)))  # one gain at rank 1, ideal two
    assert row["coverage@1"] == pytest.approx(20 / 50)  # lost characters are evidence, never covered
    assert row["survival"] == pytest.approx(20 / 50)


def test_a_question_whose_evidence_is_all_lost_is_scored_zero_not_dropped():
    row = _evaluate(Question("q", "?", lost=(Lost("a.pdf", "gone"),)))
    assert row["labelled"] and row["recall@2"] == 0.0 and row["mrr@2"] == 0.0 and row["survival"] == 0.0


def test_a_verbatim_corpus_survives_whole():
    assert _evaluate(Question("q", "?", spans=(Span("a.pdf", 60, 70),)))["survival"] == 1.0


def test_lost_by_parser_is_the_class_of_a_miss_with_lost_evidence():
    located = Question("q1", "?", spans=(Span("a.pdf", 60, 70),), lost=(Lost("a.pdf", "y"),))
    gone = Question("q2", "?", lost=(Lost("a.pdf", "y"),))
    hit = Question("q3", "?", spans=(Span("a.pdf", 0, 10),), lost=(Lost("a.pdf", "y"),))
    stages = StageLists(first={"bm25": np.array([[0], [0], [0]])}, fused=np.array([[0], [0], [0]]))
    found = [d.failure for d in diagnose(CHUNKS, [located, gone, hit], stages, tau=0.5, report_k=1)]
    assert found == [LOST, LOST, "hit"]
