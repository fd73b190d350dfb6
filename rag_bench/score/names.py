"""Metric names (``recall@10``, ``recall@2000chars``, ``precision_omega``): parsed and checked in one place.

A name is valid when an entry of the metric table (``score/metrics.py``) measures it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag_bench.core.errors import ConfigError
from rag_bench.score.metrics import FAMILIES, budget_families, whole_families

_NAME = re.compile(r"^([a-z_]+)(?:@(\d+)(chars)?)?$")


@dataclass(frozen=True, order=True)
class Metric:
    """A metric family and its cut-off; ``str(m)`` is its name, e.g. ``recall@10``."""

    family: str
    k: int | None = None
    unit: str = ""  # "chars" for budgeted metrics: the list cut at k characters

    def __str__(self) -> str:
        return self.family if self.k is None else f"{self.family}@{self.k}{self.unit}"


def higher_is_better(name: str | Metric) -> bool:
    """The metric table's direction of a metric: True unless its family is lower-is-better (``leak@k``).

    Every ranking of metric values (a sweep's best point and ties, plots, a gate rule, an objective) reads this.
    """
    metric = name if isinstance(name, Metric) else parse_metric(name)
    return FAMILIES[metric.family].higher_is_better


def maximised(name: str, value: float) -> float:
    """``value`` oriented so that more is better: negated for a lower-is-better metric (an objective to maximise)."""
    return value if higher_is_better(name) else -value


def parse_metric(name: str) -> Metric:
    """``"ndcg@10"`` -> Metric("ndcg", 10); a ConfigError naming what is allowed otherwise."""
    at_k = [f.name for f in FAMILIES.values() if f.at_k]
    budgeted, whole = [f.name for f in budget_families()], [f.name for f in whole_families()]
    match = _NAME.match(name.strip())
    family, k, unit = match.groups() if match else (None, None, None)
    if unit and family in budgeted and int(k) > 0:
        return Metric(family, int(k), unit)
    if not unit and family in at_k and k is not None and int(k) > 0:
        return Metric(family, int(k))
    if family in whole and k is None:
        return Metric(family)
    raise ConfigError(
        f"unknown metric name {name!r}: use FAMILY@K with FAMILY one of {', '.join(at_k)} "
        f"(e.g. recall@10), FAMILY@Nchars with FAMILY one of {', '.join(budgeted)} (e.g. recall@2000chars), "
        f"or {', '.join(whole)}"
    )
