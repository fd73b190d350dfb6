import pytest

from rag_bench.core.types import Chunk, Span
from rag_bench.score.budget import budget_context, budget_metrics
from rag_bench.score.metrics import budget_columns

# chunk lengths 100, 200, 50; spans of 60 and 30 characters
CHUNKS = [Chunk("d", 0, 100, ""), Chunk("d", 100, 300, ""), Chunk("d", 300, 350, "")]
SPANS = [Span("d", 120, 180), Span("d", 310, 340)]


def metrics(ranked, budget, tau=0.5, chunks=CHUNKS):
    values = budget_metrics(ranked, chunks, SPANS, [budget], tau)
    return values[f"hit@{budget}chars"], values[f"recall@{budget}chars"], values[f"coverage@{budget}chars"]


def test_context_fills_the_budget_and_cuts_the_last_chunk():
    assert [(c.start, c.end) for c in budget_context([0, 1, 2], CHUNKS, 150)] == [(0, 100), (100, 150)]
    assert [(c.start, c.end) for c in budget_context([2, 0, 1], CHUNKS, 120)] == [(300, 350), (0, 70)]
    assert [(c.start, c.end) for c in budget_context([0, 1, 2], CHUNKS, 1000)] == [(0, 100), (100, 300), (300, 350)]


@pytest.mark.parametrize(
    ("ranked", "budget", "expected"),
    [
        # only chunk 0 fits: it touches no span
        ([0, 1, 2], 100, (0.0, 0.0, 0.0)),
        # chunk 0 + [100, 150) of chunk 1: overlap 30 with span 0 >= 0.5 * min(50, 60) = 25 -> hit;
        # coverage 30 of 90 evidence characters
        ([0, 1, 2], 150, (1.0, 0.5, 30 / 90)),
        # everything: chunk 1 hits span 0 (60 >= 30), chunk 2 hits span 1 (30 >= 15)
        ([0, 1, 2], 400, (1.0, 1.0, 1.0)),
        # chunk 2 alone (50 characters) holds span 1
        ([2, 0, 1], 50, (1.0, 0.5, 30 / 90)),
        # chunk 2 cut to [300, 320): overlap 10 >= 0.5 * min(20, 30) = 10 -> hit; coverage 10 / 90
        ([2, 0, 1], 20, (1.0, 0.5, 10 / 90)),
        # chunk 2 cut to [300, 315): overlap 5 < 0.5 * min(15, 30) = 7.5 -> no hit, but 5 characters covered
        ([2, 0, 1], 15, (0.0, 0.0, 5 / 90)),
    ],
)
def test_budgeted_metrics_by_hand(ranked, budget, expected):
    assert metrics(ranked, budget) == pytest.approx(expected)


def test_count_cutoff_and_budget_differ_for_large_chunks():
    # one 2000-character chunk vs four of 500: at 1000 characters the large chunk is cut in half
    big = [Chunk("d", 0, 2000, "")]
    small = [Chunk("d", i * 500, (i + 1) * 500, "") for i in range(4)]
    span = [Span("d", 1600, 1700)]
    assert budget_metrics([0], big, span, [1000], 0.5)["recall@1000chars"] == 0.0
    assert budget_metrics([3, 0], small, span, [1000], 0.5)["recall@1000chars"] == 1.0


def test_prefixes_do_not_spend_the_budget():
    with_prefix = [Chunk(c.doc_id, c.start, c.end, c.text, prefix="x" * 500) for c in CHUNKS]
    assert metrics([0, 1, 2], 150, chunks=with_prefix) == metrics([0, 1, 2], 150)


def test_other_documents_never_hit():
    other = [Chunk("e", 120, 180, "")]
    assert budget_metrics([0], other, SPANS, [100], 0.5) == {
        "hit@100chars": 0.0,
        "recall@100chars": 0.0,
        "coverage@100chars": 0.0,
    }


def test_names():
    assert budget_columns([2000, 500, 500]) == [
        "hit@500chars",
        "hit@2000chars",
        "recall@500chars",
        "recall@2000chars",
        "coverage@500chars",
        "coverage@2000chars",
    ]
