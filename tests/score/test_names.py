import pytest

from rag_bench.core.errors import ConfigError
from rag_bench.score.names import Metric, parse_metric


@pytest.mark.parametrize(
    ("name", "metric"),
    [
        ("recall@10", Metric("recall", 10)),
        ("ndcg@3", Metric("ndcg", 3)),
        ("precision_omega", Metric("precision_omega")),
        ("recall@2000chars", Metric("recall", 2000, "chars")),
        ("coverage@1000chars", Metric("coverage", 1000, "chars")),
    ],
)
def test_names_round_trip(name, metric):
    assert parse_metric(name) == metric and str(metric) == name


@pytest.mark.parametrize(
    "name", ["recall", "recall@0", "recall@0chars", "ndcg@100chars", "precision_omega@5", "rcall@10", "mrr@x"]
)
def test_unknown_names_say_what_is_allowed(name):
    with pytest.raises(ConfigError, match=r"unknown metric name .*\(e\.g\. recall@10\)"):
        parse_metric(name)
