"""What paid API calls cost: the one price table (``configs/prices.yaml``) and the formulas that use it.

Embedding and reranking models bill their tokens at one price; language models bill input and output
tokens at their own prices, a 5-minute prompt-cache write at 1.25 times the input price and a cache
read at 0.1 times (Anthropic's pricing page, "Prompt caching") unless the table gives them:

    cost = (input * p_in + cache_write * p_write + cache_read * p_read + output * p_out) / 10^6 USD
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

CACHE_WRITE, CACHE_READ = 1.25, 0.1  # multiples of the input price
TOKEN_KINDS = ("input", "cache_write", "cache_read", "output")


@dataclass(frozen=True)
class Price:
    """USD per million tokens of one model: ``input`` (every billed token of an embedding or reranking
    model), and for a language model ``output`` and the prompt cache's write and read prices."""

    input: float = 0.0
    output: float | None = None
    cache_write: float | None = None  # None: CACHE_WRITE x input
    cache_read: float | None = None  # None: CACHE_READ x input
    search: float | None = None  # USD per search unit (a rerank billed by searches: Cohere), not per token

    def per_kind(self) -> dict[str, float]:
        """Price by token kind (``TOKEN_KINDS``), the cache prices filled in."""
        return {
            "input": self.input,
            "cache_write": CACHE_WRITE * self.input if self.cache_write is None else self.cache_write,
            "cache_read": CACHE_READ * self.input if self.cache_read is None else self.cache_read,
            "output": 0.0 if self.output is None else self.output,
        }


@cache
def price_table() -> dict[str, Price]:
    """Model -> its price, from ``configs/prices.yaml`` (a number, or {input, output[, cache_write, cache_read]},
    or {search} for a reranker billed per search)."""
    import yaml

    from rag_bench.core.paths import project_folder

    path = project_folder("configs") / "prices.yaml"
    table = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {
        str(model): Price(float(value))
        if isinstance(value, int | float)
        else Price(**{k: float(v) for k, v in value.items()})
        for model, value in table.items()
    }


def price_per_million(model: str, override: float | None) -> float | None:
    """An embedding or reranking model's price: the setting's override, else the table's, else None (unknown)."""
    if override is not None:
        return override
    price = price_table().get(model)
    return None if price is None else price.input


def price_per_search(model: str) -> float | None:
    """USD per search unit of a reranker billed by searches (the table's ``search``), else None."""
    price = price_table().get(model)
    return None if price is None else price.search


def model_price(model: str | None, input_price: float | None = None, output_price: float | None = None) -> Price | None:
    """A language model's price: the settings' prices when both are given, else the table's, else None."""
    if input_price is not None and output_price is not None:
        return Price(input_price, output_price)
    return price_table().get(model) if model else None


def llm_cost(tokens: Mapping[str, int], price: Price | None) -> float | None:
    """USD for ``tokens`` (by kind, ``TOKEN_KINDS``; kinds not given count 0) at ``price``; None when unknown."""
    if price is None:
        return None
    prices = price.per_kind()
    return sum(tokens.get(kind, 0) * prices[kind] for kind in TOKEN_KINDS) / 1e6
