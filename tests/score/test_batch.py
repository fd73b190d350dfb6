"""``batch.span_batch`` (every span question at once, in numpy) against the question-by-question code it
replaces in the evaluation: ``relevance.touching``, ``spans.span_views`` and ``budget.budget_views``, turned
into columns by ``views.span_columns``; every field equal to the bit, on random chunkings (overlapping
chunks, several documents), evidence (several spans, overlapping or touching, lost excerpts, documents no
chunk comes from) and rankings (short lists, a chunk listed twice)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from rag_bench.core.types import Chunk, Lost, Question, Span
from rag_bench.score.batch import span_batch
from rag_bench.score.budget import budget_views
from rag_bench.score.relevance import ChunkLocator, touching
from rag_bench.score.spans import span_views
from rag_bench.score.views import span_columns


def _chunks(rng: random.Random) -> list[Chunk]:
    chunks = []
    for d in range(rng.randint(1, 5)):
        at = 0
        for _ in range(rng.randint(1, 12)):
            size = rng.randint(1, 60)
            chunks.append(Chunk(f"d{d}", at, at + size, ""))
            at += size - rng.choice([0, 0, rng.randint(0, size - 1)])  # some chunks overlap the next
    rng.shuffle(chunks)
    return chunks


def _question(rng: random.Random, n: int, ndocs: int) -> Question:
    spans = []
    for _ in range(rng.choice([0, 1, 1, 1, 2, 3, 5])):
        doc = f"d{rng.randint(0, ndocs)}"  # d{ndocs}: a document no chunk comes from
        start = rng.randint(0, 300)
        spans.append(Span(doc, start, start + rng.randint(1, 80)))
    lost = tuple(Lost(None, "x" * rng.randint(0, 30)) for _ in range(rng.choice([0, 0, 0, 1, 2])))
    if not spans and not lost:
        lost = (Lost("d0", "lost excerpt"),)
    return Question(f"q{n}", "?", spans=tuple(spans), lost=lost)


def _ranked(rng: random.Random, questions, n_chunks: int, width: int) -> np.ndarray:
    ranked = np.full((len(questions), width), -1, dtype=np.int64)
    for row in ranked:
        listed = rng.sample(range(n_chunks), min(n_chunks, rng.randint(0, width)))
        if listed and rng.random() < 0.2 and len(listed) < width:
            listed.append(listed[0])  # the same chunk twice
        row[: len(listed)] = listed
    return ranked


def _expected(chunks, questions, ranked, ks, budgets, tau):
    locator = ChunkLocator(chunks)
    nears, views, budgeted = [], [], []
    for question, row in zip(questions, ranked.tolist(), strict=True):
        listed = [c for c in row if c >= 0]
        nears.append(touching(locator, question.spans, tau))
        views.append(span_views(listed, chunks, question.spans, nears[-1], ks, question.lost))
        budgeted.append(budget_views(listed, chunks, question.spans, budgets, tau, question.lost))
    at_k = [span_columns(cut) for cut in zip(*views, strict=True)]
    at_budget = [span_columns(cut) for cut in zip(*budgeted, strict=True)]
    return nears, at_k, at_budget, [v[-1].first_hit for v in views]


def _assert_columns(got, want) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        for name, a, b in zip(w._fields, g, w, strict=True):
            assert a.dtype == b.dtype, name
            assert np.array_equal(a, b), (name, a, b)
            assert a.tobytes() == b.tobytes(), name  # to the bit


@pytest.mark.parametrize("seed", range(40))
def test_equal_to_question_by_question(seed: int) -> None:
    rng = random.Random(seed)
    chunks = _chunks(rng)
    ndocs = len({c.doc_id for c in chunks})
    questions = [_question(rng, n, ndocs) for n in range(rng.randint(1, 30))]
    width = rng.randint(1, 25)
    ranked = _ranked(rng, questions, len(chunks), width)
    ks = sorted(rng.sample([1, 2, 3, 5, 10, 20, 30], rng.randint(1, 4)))
    budgets = rng.sample([1, 10, 50, 100, 400, 5000], rng.randint(0, 3))
    tau = rng.choice([0.5, 0.55, 0.3, 1.0, 0.0, 0.1])
    batch = span_batch(chunks, questions, ranked, ks, budgets, tau)
    assert batch is not None
    nears, at_k, at_budget, first = _expected(chunks, questions, ranked, ks, budgets, tau)
    assert batch.touching == nears
    assert [list(a) for a in batch.touching] == [list(b) for b in nears]  # keys in the same order
    assert batch.first_hit == first
    _assert_columns(batch.at_k, at_k)
    _assert_columns(batch.budgets, at_budget)
    lengths = [c.end - c.start for c in chunks]
    assert batch.chars.tolist() == [sum(lengths[c] for c in row if c >= 0) for row in ranked.tolist()]


def test_hand_worked_question() -> None:
    # d: chunks [0, 100), [80, 200), [200, 300); evidence [90, 110) and [250, 260); list: chunk 2, then 0
    chunks = [Chunk("d", 0, 100, ""), Chunk("d", 80, 200, ""), Chunk("d", 200, 300, "")]
    question = Question("q", "?", spans=(Span("d", 90, 110), Span("d", 250, 260)))
    batch = span_batch(chunks, [question], np.array([[2, 0, -1]]), [1, 2], [150], 0.5)
    # chunk 0 shares 10 of span 0's 20 characters (10 >= 0.5 * 20: a hit), chunk 1 shares 20 (a hit),
    # chunk 2 all 10 of span 1's
    assert batch.touching == [{0: frozenset({0}), 1: frozenset({0}), 2: frozenset({1})}]
    at1, at2 = batch.at_k
    assert batch.first_hit == [1]
    assert (at1.hits[0], at2.hits[0]) == (1, 2)
    assert (at1.covered[0], at2.covered[0]) == (10, 20)  # [250, 260), then [90, 100) as well
    assert (at1.lengths[0], at2.lengths[0]) == (100, 200)
    assert at2.dcg[0] == 1.0 + 1 / np.log2(3)
    assert (at1.touched[0], at1.touched_covered[0]) == (300, 30)  # every chunk touches; E is 30 characters
    (budget,) = batch.budgets
    # 150 characters: chunk 2 whole, then chunk 0 cut to [0, 50), which no longer reaches span 0
    assert (budget.k[0], budget.hits[0], budget.covered[0], budget.lengths[0]) == (2, 1, 10, 150)


def test_declines_what_it_cannot_do_exactly() -> None:
    chunks = [Chunk("d", 0, 10, ""), Chunk("d", 10, 20, "")]
    question = Question("q", "?", spans=(Span("d", 0, 5),))
    assert span_batch(chunks, [question], np.array([[-1, 0]]), [1], [], 0.5) is None  # a pad before a chunk
    assert span_batch([*chunks, Chunk("d", 5, 5, "")], [question], np.array([[0, 1]]), [1], [], 0.5) is None
    assert span_batch(chunks, [question], np.array([[0, 1]]), [1], [], 0.30000000000000004) is not None
    big = [Chunk("d", 0, 2**40, ""), Chunk("d", 2**40, 2**41, "")]
    assert span_batch(big, [question], np.array([[0, 1]]), [1], [], 0.30000000000000004) is None  # past 2**62
