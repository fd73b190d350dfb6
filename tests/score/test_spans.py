import math

import numpy as np
import pytest

from rag_bench.core.types import Chunk, Span
from rag_bench.score.budget import budget_metrics
from rag_bench.score.relevance import ChunkLocator, hits, tau_ratio, touching
from rag_bench.score.spans import span_metrics


def chunk(doc, start, end):
    return Chunk(doc, start, end, "x" * (end - start))


# Document "a": chunks of 100 chars; document "b": one chunk.
CHUNKS = [chunk("a", 0, 100), chunk("a", 100, 200), chunk("a", 200, 300), chunk("b", 0, 50)]


def metrics(ranked, spans, ks=(1, 2, 3), tau=0.5):
    hits = touching(ChunkLocator(CHUNKS), spans, tau)
    return span_metrics(np.array(ranked), CHUNKS, spans, hits, ks)


def test_tau_rule_short_span_needs_half_inside():
    # span [90, 110): 10 chars in chunk 0, 10 in chunk 1: min length 20, tau 0.5 -> 10 needed: both hit
    assert touching(ChunkLocator(CHUNKS), [Span("a", 90, 110)], 0.5) == {0: frozenset({0}), 1: frozenset({0})}
    # span [95, 115): 5 in chunk 0 (touches only), 15 in chunk 1 (hits)
    assert touching(ChunkLocator(CHUNKS), [Span("a", 95, 115)], 0.5) == {0: frozenset(), 1: frozenset({0})}


def test_tau_rule_long_span_hit_by_chunk_inside_it():
    # span covers chunks 0..2 partially: chunk 1 lies inside it; chunk 2 overlaps 40 of 100 < 50
    hits = touching(ChunkLocator(CHUNKS), [Span("a", 30, 240)], 0.5)
    assert hits == {0: frozenset({0}), 1: frozenset({0}), 2: frozenset()}


def test_rank_metrics_by_hand_two_spans():
    spans = [Span("a", 110, 190), Span("b", 10, 40)]  # hit by chunk 1 and chunk 3
    values, first = metrics([0, 1, 3], spans)
    assert first == 2
    assert values["hit@1"] == 0 and values["hit@2"] == 1
    assert values["recall@1"] == 0 and values["recall@2"] == 0.5 and values["recall@3"] == 1
    assert values["mrr@1"] == 0 and values["mrr@2"] == 0.5 and values["mrr@3"] == 0.5
    idcg2 = 1 + 1 / math.log2(3)
    assert values["ndcg@2"] == pytest.approx((1 / math.log2(3)) / idcg2)
    assert values["ndcg@3"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(4)) / idcg2)
    # ideal for k=1 is one gain at rank 1
    assert values["ndcg@1"] == 0


def test_redundant_chunk_earns_no_gain():
    spans = [Span("a", 90, 110), Span("b", 0, 50)]  # span 0 hit by chunks 0 and 1
    values, _ = metrics([0, 1, 3], spans)
    dcg = 1 + 0 + 1 / math.log2(4)
    assert values["ndcg@3"] == pytest.approx(dcg / (1 + 1 / math.log2(3)))
    assert values["recall@2"] == 0.5


def test_character_metrics_by_hand():
    spans = [Span("a", 150, 250)]  # 100 evidence chars: 50 in chunk 1, 50 in chunk 2
    values, _ = metrics([1, 3, 2], spans)
    assert values["coverage@1"] == 0.5
    assert values["char_precision@1"] == 50 / 100
    assert values["iou@1"] == 50 / (100 + 50)
    assert values["coverage@2"] == 0.5 and values["char_precision@2"] == 50 / 150
    assert values["iou@2"] == 50 / (150 + 50)
    assert values["coverage@3"] == 1 and values["char_precision@3"] == 100 / 250
    assert values["iou@3"] == 100 / 250
    # chunks 1 and 2 touch the evidence: 100 covered / 200 touched characters
    assert values["precision_omega"] == 0.5


def test_overlapping_evidence_counts_once():
    spans = [Span("a", 0, 60), Span("a", 40, 100)]  # union = 100 chars
    values, _ = metrics([0], spans, ks=(1,))
    assert values["coverage@1"] == 1 and values["recall@1"] == 1 and values["ndcg@1"] == 1


def test_nothing_retrieved_scores_zero():
    values, first = metrics([], [Span("a", 0, 10)], ks=(5,))
    assert first is None and values["recall@5"] == 0 and values["char_precision@5"] == 0


@pytest.mark.parametrize("percent", range(1, 100))
def test_tau_rule_is_exact_at_the_threshold(percent):
    # chunk [0, 100) and span [100 - n, 200 - n) share n characters; min length 100, so tau = n/100 needs n.
    # In binary floating point 0.55 * 100 is 55.00000000000001 (also 0.07, 0.14, 0.28, 0.29, 0.56, 0.57, ...),
    # so an overlap exactly at the threshold missed.
    tau = percent / 100
    piece = chunk("a", 0, 100)
    assert hits(piece, Span("a", 100 - percent, 200 - percent), tau)
    assert not hits(piece, Span("a", 101 - percent, 201 - percent), tau)


def test_tau_rule_exact_through_every_user():
    # tau 0.55 on min length 100 needs 55 characters; 0.55 * 100 = 55.00000000000001 in floating point
    assert 0.55 * 100 > 55
    span = Span("a", 145, 245)  # 55 characters inside chunk 1 [100, 200), 45 inside chunk 2
    assert touching(ChunkLocator(CHUNKS), [span], 0.55) == {1: frozenset({0}), 2: frozenset()}
    values, first = metrics([2, 1], [span], ks=(1, 2), tau=0.55)
    assert (first, values["hit@1"], values["hit@2"], values["mrr@2"]) == (2, 0.0, 1.0, 0.5)
    budget = budget_metrics([1], CHUNKS, [span], [100], 0.55)  # the whole chunk fits the budget
    assert budget["hit@100chars"] == 1.0
    assert tau_ratio(0.55) == (11, 20) and tau_ratio(np.float64(0.28)) == (7, 25) and tau_ratio(1) == (1, 1)
