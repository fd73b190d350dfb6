"""Metric names (``recall@10``, ``precision_omega``): parsed and checked in one place."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag_bench.errors import ConfigError

# families measured at a cut-off k, and those measured once per question
AT_K = ("hit", "recall", "mrr", "ndcg", "coverage", "char_precision", "iou", "map", "precision")
WHOLE = ("precision_omega",)
_NAME = re.compile(r"^([a-z_]+)(?:@(\d+))?$")


@dataclass(frozen=True, order=True)
class Metric:
    """A metric family and its cut-off; ``str(m)`` is its name, e.g. ``recall@10``."""

    family: str
    k: int | None = None

    def __str__(self) -> str:
        return self.family if self.k is None else f"{self.family}@{self.k}"


def parse_metric(name: str) -> Metric:
    """``"ndcg@10"`` -> Metric("ndcg", 10); a ConfigError naming what is allowed otherwise."""
    match = _NAME.match(name.strip())
    family, k = (match.group(1), match.group(2)) if match else (None, None)
    if family in AT_K and k is not None and int(k) > 0:
        return Metric(family, int(k))
    if family in WHOLE and k is None:
        return Metric(family)
    raise ConfigError(
        f"unknown metric name {name!r}: use FAMILY@K with FAMILY one of {', '.join(AT_K)} "
        f"(e.g. recall@10), or {', '.join(WHOLE)}"
    )
