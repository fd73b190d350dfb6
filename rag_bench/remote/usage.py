"""What paid API calls were asked for: per-model usage counters, and request batching (prices: ``prices.py``)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

COUNTS = ("requests", "retries", "texts", "cached", "tokens", "searches")


@dataclass
class Usage:
    """What one API model was asked for in this process, for metrics.json ``stats``."""

    model: str
    price_per_million: float | None = None  # USD; None = unknown
    requests: int = 0  # HTTP requests sent, retries included
    retries: int = 0
    texts: int = 0  # texts embedded, or documents scored, by the API
    cached: int = 0  # documents whose scores came from the cache (rerankers)
    tokens: int = 0  # billed tokens, from the responses' usage.total_tokens
    searches: int = 0  # billed search units (rerankers billed per search: Cohere)
    price_per_search: float | None = None  # USD per search unit; None = not billed per search
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **counts: int) -> None:
        with self._lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)

    @property
    def estimated_cost_usd(self) -> float | None:
        return self.cost(self.tokens, self.searches)

    def cost(self, tokens: int, searches: int) -> float | None:
        """USD for ``tokens`` and ``searches`` at this model's prices; None when neither price is known."""
        if self.price_per_million is None and self.price_per_search is None:
            return None
        return tokens * (self.price_per_million or 0.0) / 1e6 + searches * (self.price_per_search or 0.0)

    def as_dict(self) -> dict:
        names = ("model", "price_per_million", *COUNTS)
        return {**{n: getattr(self, n) for n in names}, "estimated_cost_usd": self.estimated_cost_usd}

    def since(self, before: dict) -> dict:
        """``as_dict()`` counting only what happened after ``before`` (an earlier ``as_dict()``)."""
        now = self.as_dict()
        counts = {n: now[n] - before.get(n, 0) for n in COUNTS}
        return {**now, **counts, "estimated_cost_usd": self.cost(counts["tokens"], counts["searches"])}


@runtime_checkable
class Metered(Protocol):
    """A component that calls a paid API and counts what it asked for (embedders, rerankers)."""

    usage: Usage


def plan_batches(costs: Sequence[int], max_items: int, max_cost: int) -> list[tuple[int, int]]:
    """Contiguous ``[start, end)`` ranges of at most ``max_items`` items whose costs sum to at most
    ``max_cost`` (an item over ``max_cost`` goes alone), greedily in order.

    Example: costs [3, 3, 3, 5], max_items 2, max_cost 7 -> [(0, 2), (2, 3), (3, 4)].
    """
    ranges, start, total = [], 0, 0
    for i, cost in enumerate(costs):
        if i > start and (i - start >= max_items or total + cost > max_cost):
            ranges.append((start, i))
            start, total = i, 0
        total += cost
    if start < len(costs):
        ranges.append((start, len(costs)))
    return ranges


def estimate_tokens(text: str) -> int:
    """A cheap upper estimate of a text's tokens: utf-8 bytes / 3, plus 1.

    English runs at about 4-5 characters per token in Voyage's tokenizers, so this over-counts
    and a request planned with it stays under the API's token limit; billing uses the API's count.
    """
    return len(text.encode("utf-8")) // 3 + 1
