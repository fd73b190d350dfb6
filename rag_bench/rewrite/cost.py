"""What Anthropic rewrites cost: token counts from the replies, priced from ``configs/rewrite/anthropic-prices.yaml``.

cost = (input * p_in + cache_write * 1.25 p_in + cache_read * 0.1 p_in + output * p_out) / 10^6 USD,
p_in / p_out the model's input and output prices per million tokens; a cache write (5-minute
prompt cache) bills 1.25 times the input price and a cache read 0.1 times (Anthropic's pricing
page, "Prompt caching"). A model missing from the table has an unknown (None) cost unless both
prices are given as settings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

CACHE_WRITE, CACHE_READ = 1.25, 0.1  # multiples of the input price


@dataclass
class RewriteUsage:
    """Requests sent and tokens billed by one ``rag-bench rewrite`` run."""

    requests: int = 0  # replies asked of the API in this run
    from_cache: int = 0  # replies served from the disk cache (no request)
    tokens: dict[str, int] = field(default_factory=lambda: {"input": 0, "cache_write": 0, "cache_read": 0, "output": 0})

    def add(self, usage) -> None:
        """Add a Messages API reply's ``usage`` (input, output, cache creation and cache read tokens)."""
        self.requests += 1
        for name, attr in (
            ("input", "input_tokens"),
            ("cache_write", "cache_creation_input_tokens"),
            ("cache_read", "cache_read_input_tokens"),
            ("output", "output_tokens"),
        ):
            self.tokens[name] += getattr(usage, attr, 0) or 0


@cache
def price_table() -> dict[str, tuple[float, float]]:
    """model -> (input, output) USD per million tokens."""
    import yaml

    from rag_bench.core.paths import project_folder

    path = project_folder("configs") / "rewrite" / "anthropic-prices.yaml"
    table = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {str(model): (float(p["input"]), float(p["output"])) for model, p in table.items()}


def prices(model: str, input_price: float | None, output_price: float | None) -> tuple[float, float] | None:
    """The settings' prices when both are given, else the table's for ``model``, else None (unknown)."""
    if input_price is not None and output_price is not None:
        return input_price, output_price
    return price_table().get(model)


def estimated_cost(tokens: dict[str, int], price: tuple[float, float] | None) -> float | None:
    """USD for ``tokens`` at ``price`` (formula in the module docstring); None when the price is unknown."""
    if price is None:
        return None
    p_in, p_out = price
    billed_input = tokens["input"] + CACHE_WRITE * tokens["cache_write"] + CACHE_READ * tokens["cache_read"]
    return (billed_input * p_in + tokens["output"] * p_out) / 1e6
