"""The metric table: one entry per family; adding one adds its columns; nothing requested is dropped silently."""

import numpy as np
import pytest

from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Chunk, Dataset, Document, Question, Span
from rag_bench.score import metrics
from rag_bench.score.evaluate import check_measured, evaluate
from rag_bench.score.metrics import FAMILIES, Family
from rag_bench.score.names import parse_metric

DOC = Document("a", "0123456789" * 4)
CHUNKS = [Chunk("a", 0, 10, DOC.text[0:10]), Chunk("a", 10, 20, DOC.text[10:20]), Chunk("a", 20, 40, DOC.text[20:40])]
SPANS = Question("q1", "?", spans=(Span("a", 12, 18),))
JUDGED = Question("q2", "?", judgements={"a": 1})


def test_a_new_entry_is_measured_and_named(monkeypatch):
    # "second_hit": 1 when the second-ranked chunk hits a span (first hit at rank 2 exactly)
    entry = Family("second_hit", span=lambda v: float(v.first_hit == 2 and v.k >= 2))
    monkeypatch.setitem(FAMILIES, "second_hit", entry)
    assert str(parse_metric("second_hit@3")) == "second_hit@3"
    ranked = np.array([[0, 1, 2]])
    result = evaluate(Dataset("t", (DOC,), (SPANS,)), CHUNKS, ranked, np.array([[3.0, 2.0, 1.0]]), [1, 3], 0.5, 10)
    assert result.per_question.loc[0, "second_hit@1"] == 0.0 and result.per_question.loc[0, "second_hit@3"] == 1.0
    assert "second_hit@3" in result.summary


def test_every_family_is_measured_somewhere():
    for family in metrics.FAMILIES.values():
        assert family.span is not None or family.document is not None or family.filtered is not None, family.name


def test_requested_metrics_must_be_measured():
    spans_only = Dataset("spans", (DOC,), (SPANS,))
    judged_only = Dataset("judged", (DOC,), (JUDGED,))
    check_measured("recall@10", spans_only, [5, 10], [1000], "objective")
    check_measured("map@5", judged_only, [5], [], "objective")
    with pytest.raises(ConfigError, match=r"\(map@5\) is measured on document questions, and dataset 'spans'"):
        check_measured("map@5", spans_only, [5], [], "objective")
    with pytest.raises(ConfigError, match=r"objective \(coverage@5\) is measured on span questions"):
        check_measured("coverage@5", judged_only, [5], [], "objective")
    with pytest.raises(ConfigError, match=r"needs 20 in ks \(\[5, 10\]\)"):
        check_measured("ndcg@20", spans_only, [5, 10], [], "objective")
    with pytest.raises(ConfigError, match=r"needs 500 in budgets \(\[1000\]\)"):
        check_measured("recall@500chars", spans_only, [5], [1000], "objective")


def test_listed_rows_drop_the_pads_whether_they_trail_or_not():
    from rag_bench.score.evaluate import listed_rows

    trailing = np.array([[3, 1, -1, -1], [2, 0, 5, 4], [-1, -1, -1, -1]])
    assert listed_rows(trailing) == [[3, 1], [2, 0, 5, 4], []]
    inside = np.array([[3, -1, 1, -1], [2, 0, 5, 4]])  # a pad before a chunk: filtered, not cut
    assert listed_rows(inside) == [[3, 1], [2, 0, 5, 4]]
    assert listed_rows(np.zeros((2, 0), dtype=np.int64)) == [[], []]
    assert all(type(c) is int for row in listed_rows(trailing) for c in row)
