"""Metric names (``recall@10``, ``precision_omega``): parsed and checked in one place."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag_bench.errors import ConfigError

# families measured at a cut-off k, and those measured once per question
AT_K = ("hit", "recall", "mrr", "ndcg", "coverage", "char_precision", "iou", "map", "precision")
WHOLE = ("precision_omega",)
_NAME = re.compile(r"^([a-z_]+)(?:@(\d+)(chars)?)?$")
BUDGETED = ("hit", "recall", "coverage")


@dataclass(frozen=True, order=True)
class Metric:
    """A metric family and its cut-off; ``str(m)`` is its name, e.g. ``recall@10``."""

    family: str
    k: int | None = None
    unit: str = ""  # "chars" for budgeted metrics: the list cut at k characters

    def __str__(self) -> str:
        return self.family if self.k is None else f"{self.family}@{self.k}{self.unit}"


def parse_metric(name: str) -> Metric:
    """``"ndcg@10"`` -> Metric("ndcg", 10); a ConfigError naming what is allowed otherwise."""
    match = _NAME.match(name.strip())
    family, k, unit = match.groups() if match else (None, None, None)
    if unit and family in BUDGETED and int(k) > 0:
        return Metric(family, int(k), unit)
    if not unit and family in AT_K and k is not None and int(k) > 0:
        return Metric(family, int(k))
    if family in WHOLE and k is None:
        return Metric(family)
    raise ConfigError(
        f"unknown metric name {name!r}: use FAMILY@K with FAMILY one of {', '.join(AT_K)} "
        f"(e.g. recall@10), FAMILY@Nchars with FAMILY one of {', '.join(BUDGETED)} (e.g. recall@2000chars), "
        f"or {', '.join(WHOLE)}"
    )
