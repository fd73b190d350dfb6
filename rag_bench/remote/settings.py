"""``ApiSettings``: the settings every component that calls a remote API shares (one schema).

Voyage embedders and rerankers apply all of them through ``rag_bench.remote.retry``; the
Anthropic steps pass ``max_retries`` and ``timeout_s`` to the official SDK, whose own backoff
retries 408/409/429/5xx and connection errors (``backoff_s`` and ``max_total_s`` do not apply).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from rag_bench.core.errors import ConfigError


@dataclass
class ApiSettings:
    base_url: str | None = None  # null = the official endpoint; e.g. a local fake server
    concurrency: int = 4  # requests (or questions) in flight at once
    max_retries: int = 5  # retries after a 429, 5xx, timeout or dropped connection
    backoff_s: float = 1.0  # first retry waits about this long, doubling up to 30 s; Retry-After wins
    timeout_s: float = 60.0  # per request
    max_total_s: float = 300.0  # per request, retries and waits included
    price_per_million: float | None = None  # USD per million tokens; null = configs/prices.yaml

    def check_api(self, prefix: str) -> None:
        """ConfigError for a setting out of range; ``prefix`` names the group (``embedder``, ``generator``)."""
        for name, low in (("concurrency", 1), ("max_retries", 0)):
            if getattr(self, name) < low:
                raise ConfigError(f"{prefix}.{name} ({getattr(self, name)}) must be at least {low}")
        for name in ("backoff_s", "timeout_s", "max_total_s"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"{prefix}.{name} ({getattr(self, name)}) must be positive")
        if self.price_per_million is not None and self.price_per_million < 0:
            raise ConfigError(f"{prefix}.price_per_million ({self.price_per_million}) must not be negative")
        if self.base_url is not None and urlsplit(self.base_url).scheme not in ("http", "https"):
            raise ConfigError(f"{prefix}.base_url ({self.base_url!r}) must start with http:// or https://")
