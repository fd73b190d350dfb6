"""Span metrics of many questions at once (``Family.spans`` on ``SpanColumns``): the values of each question's
``Family.span``, to the bit, and the evaluation's table built from them."""

import random
from dataclasses import replace

import numpy as np
import pandas as pd

from rag_bench.score.evaluate import with_columns
from rag_bench.score.metrics import FAMILIES
from rag_bench.score.spans import span_table, span_values
from rag_bench.score.views import SpanView, span_columns


def random_view(rng: random.Random, k: int) -> SpanView:
    n_spans = rng.randint(1, 5)
    evidence = rng.randint(1, 5000)
    lost = rng.choice([0, 0, rng.randint(0, evidence)])
    touched = rng.choice([0, rng.randint(1, 9000)])
    covered = rng.choice([0, rng.randint(0, evidence - lost)])
    return SpanView(
        k=k,
        n_spans=n_spans,
        hit_spans=frozenset(rng.sample(range(n_spans), rng.randint(0, n_spans))),
        first_hit=rng.choice([None, rng.randint(1, 30)]),
        dcg=rng.random() * 3,
        idcg=rng.choice([1.0, 1.6309297535714575, rng.random() + 0.5]),
        evidence_chars=evidence,
        covered=covered,
        lengths=covered + rng.choice([0, rng.randint(1, 20000)]),  # the top k's characters hold the covered ones
        touched_covered=rng.randint(0, touched) if touched else 0,
        touched=touched,
        lost_chars=lost,
    )


def test_every_family_with_spans_equals_its_span_to_the_bit():
    rng = random.Random(32)
    views = [random_view(rng, rng.choice([1, 3, 10])) for _ in range(5000)]
    columns = span_columns(views)
    families = [f for f in FAMILIES.values() if f.spans is not None]
    assert len(families) == 9  # every span family this table ships
    for family in families:
        expected = np.array([family.span(v) for v in views], dtype=np.float64)
        assert family.spans(columns).tobytes() == expected.tobytes(), family.name


def test_by_hand():
    # 2 of 4 spans hit, first hit at rank 3 beyond k = 2, 30 of 120 evidence characters covered by 0 characters
    # listed (an empty context), 10 lost: recall 0.5, mrr 0, char_precision 0, survival 110/120
    view = SpanView(2, 4, frozenset({0, 2}), 3, 0.5, 1.0, 120, 30, 0, 0, 0, 10)
    values = {f.name: float(f.spans(span_columns([view]))[0]) for f in FAMILIES.values() if f.spans is not None}
    assert values == {
        "hit": 1.0,
        "recall": 0.5,
        "mrr": 0.0,
        "ndcg": 0.5,
        "coverage": 0.25,
        "char_precision": 0.0,
        "iou": 30 / 90,
        "precision_omega": 0.0,
        "survival": 110 / 120,
    }


def test_span_table_equals_span_values_question_by_question():
    rng = random.Random(7)
    questions = [[random_view(rng, k) for k in (1, 5, 20)] for _ in range(300)]
    table = span_table(questions)
    for q, views in enumerate(questions):
        assert {name: column[q] for name, column in table.items()} == span_values(views)
    assert span_table([]) == {}


def test_a_family_without_spans_is_measured_view_by_view(monkeypatch):
    # a family added with ``span`` alone (as a user's would be): its column from each view, the same values
    monkeypatch.setitem(FAMILIES, "iou", replace(FAMILIES["iou"], spans=None))
    rng = random.Random(8)
    questions = [[random_view(rng, k) for k in (1, 5)] for _ in range(50)]
    table = span_table(questions)
    assert [table["iou@5"][q] for q in range(50)] == [span_values(views)["iou@5"] for views in questions]


def test_with_columns_fills_the_rows_of_span_questions_beside_document_ones():
    # row 1 is a document question with its own recall@1; rows 0 and 2 get the span values, coverage@1 is new
    table = pd.DataFrame([{"question_id": "a"}, {"question_id": "b", "recall@1": 0.5}, {"question_id": "c"}])
    out = with_columns(table, [0, 2], {"recall@1": np.array([1.0, 0.0]), "coverage@1": np.array([0.25, 0.75])})
    assert out["recall@1"].tolist() == [1.0, 0.5, 0.0]
    assert out["coverage@1"].tolist()[0::2] == [0.25, 0.75] and np.isnan(out["coverage@1"][1])
    assert list(out["question_id"]) == ["a", "b", "c"] and out["recall@1"].dtype == np.float64


def test_budget_table_equals_budget_metrics_question_by_question():
    from rag_bench.score.budget import budget_metrics, budget_table, budget_views
    from tests.score.test_spans_oracle import random_case

    rng = random.Random(13)
    budgets = [400, 50, 1000, 50]  # unsorted, one twice: each measured once, ascending
    cases = [random_case(rng) for _ in range(200)]
    views = [budget_views(ranked, chunks, spans, budgets, tau) for chunks, spans, ranked, _, tau in cases]
    table = budget_table(views, budgets)
    assert sorted(table) == sorted(f"{f}@{b}chars" for f in ("hit", "recall", "coverage") for b in (50, 400, 1000))
    for q, (chunks, spans, ranked, _, tau) in enumerate(cases):
        assert {name: column[q] for name, column in table.items()} == budget_metrics(
            ranked, chunks, spans, budgets, tau
        )
    assert 0 < table["recall@400chars"].mean() < 1  # some contexts hit, some miss
    assert budget_table([[] for _ in cases], []) == {}
