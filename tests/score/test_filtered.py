"""leak@k, filtered_recall@k and selectivity, worked by hand on a three-chunk corpus."""

from types import MappingProxyType

import numpy as np
import pytest

from rag_bench.core.errors import ConfigError
from rag_bench.core.filters import parse_filter
from rag_bench.core.types import Chunk, Dataset, Document, Question, Span
from rag_bench.score.evaluate import check_measured, evaluate
from rag_bench.score.metrics import FAMILIES

DOCS = (
    Document("pub", "public text " * 10, metadata=MappingProxyType({"acl": ["all"]})),
    Document("hr", "secret text " * 10, metadata=MappingProxyType({"acl": ["hr"]})),
)
CHUNKS = [Chunk("pub", 0, 60, ""), Chunk("hr", 0, 60, ""), Chunk("pub", 60, 120, "")]
ALL = parse_filter({"acl": "all"})


def _evaluate(questions, ranked):
    ds = Dataset("t", DOCS, tuple(questions))
    ranked = np.array(ranked, dtype=np.int64)
    return evaluate(ds, CHUNKS, ranked, -np.arange(ranked.size, dtype=float).reshape(ranked.shape), [1, 2, 3], 0.5)


def test_leak_and_selectivity_by_hand():
    q = Question("q", "?", spans=(Span("pub", 60, 120),), filter=ALL)
    ev = _evaluate([q], [[1, 0, 2]])  # forbidden chunk first, evidence last
    row = ev.per_question.iloc[0]
    assert row["selectivity"] == pytest.approx(2 / 3)
    assert (row["leak@1"], row["leak@2"], row["leak@3"]) == (1.0, 0.5, pytest.approx(1 / 3))
    assert (row["filtered_recall@2"], row["filtered_recall@3"]) == (0.0, 1.0)
    assert row["filtered_ndcg@3"] == pytest.approx(1 / np.log2(4))
    assert ev.summary["leak@1"].mean == 1.0


def test_filtered_metrics_average_over_filtered_questions_only():
    filtered = Question("f", "?", spans=(Span("pub", 0, 60),), filter=ALL)
    plain = Question("p", "?", spans=(Span("hr", 0, 60),))
    ev = _evaluate([filtered, plain], [[0, 2, -1], [1, 0, 2]])
    table = ev.per_question.set_index("question_id")
    assert np.isnan(table.loc["p", "leak@1"]) and np.isnan(table.loc["p", "selectivity"])
    assert table.loc["f", "leak@3"] == 0.0  # two chunks returned, both allowed
    assert ev.summary["leak@3"].mean == 0.0 and ev.summary["filtered_recall@1"].mean == 1.0
    assert ev.summary["recall@1"].mean == 1.0  # both questions, as before
    assert FAMILIES["leak"].higher_is_better is False


def test_no_filter_no_filter_columns():
    ev = _evaluate([Question("p", "?", spans=(Span("hr", 0, 60),))], [[1, 0, 2]])
    assert "selectivity" not in ev.per_question and "leak@1" not in ev.metric_names


def test_objective_leak_needs_filtered_questions():
    plain = Dataset("t", DOCS, (Question("p", "?", spans=(Span("hr", 0, 60),)),))
    with pytest.raises(ConfigError, match="filtered questions"):
        check_measured("leak@10", plain, [10], [], "objective")
    filtered = Dataset("t", DOCS, (Question("f", "?", spans=(Span("pub", 0, 60),), filter=ALL),))
    check_measured("leak@10", filtered, [10], [], "objective")


def test_leak_averages_over_every_filtered_question_labelled_or_not():
    # an access-control probe: a filter and no evidence; its list puts the forbidden hr chunk first
    probe = Question("probe", "?", filter=ALL)
    answered = Question("f", "?", spans=(Span("pub", 0, 60),), filter=ALL)
    plain = Question("u", "?")  # neither labels nor a filter: in no aggregate
    ev = _evaluate([answered, probe, plain], [[0, 2, -1], [1, 0, 2], [1, 0, 2]])
    table = ev.per_question.set_index("question_id")
    assert (table.loc["probe", "leak@1"], table.loc["probe", "leak@2"]) == (1.0, 0.5)
    assert np.isnan(table.loc["probe", "filtered_recall@1"]) and np.isnan(table.loc["probe", "recall@1"])
    # leak@k: both filtered questions (0 and the probe's 1 / 0.5 / 1/3); the probe's leak is no longer hidden
    assert (ev.summary["leak@1"].mean, ev.summary["leak@1"].n) == (0.5, 2)
    assert ev.summary["leak@3"].mean == pytest.approx((0 + 1 / 3) / 2)
    assert ev.summary["leak@1"].ci_high == 1.0  # the probe is in the resamples
    # the metrics that need labels: the labelled question alone
    assert (ev.summary["filtered_recall@1"].n, ev.summary["recall@1"].n) == (1, 1)
    assert (ev.n_scored, ev.n_unlabelled) == (1, 2)
    assert ev.by_category["(none)"]["leak@1"] == 0.5 and ev.category_counts == {"(none)": 2}


def test_objective_leak_is_measured_on_probes_alone():
    probes = Dataset("t", DOCS, (Question("probe", "?", filter=ALL),))
    check_measured("leak@10", probes, [10], [], "objective")
    with pytest.raises(ConfigError, match="measured on labelled filtered questions"):
        check_measured("filtered_recall@10", probes, [10], [], "objective")
