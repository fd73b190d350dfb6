"""Calling paid APIs: retries with backoff, bounded concurrency, usage and prices, the Voyage key.

Retry rule: a call that fails with a transient error (HTTP 429, 5xx, a timeout, a dropped
connection) is tried again after ``min(30, backoff_s * 2**(n-1)) * u`` seconds, u uniform in
[0.5, 1] ("equal jitter", Brooker, "Exponential Backoff and Jitter", AWS Architecture Blog
2015), or after the server's ``Retry-After`` when it sends one; at most ``max_retries``
retries, and no wait that would end past ``max_total_s`` from the first attempt (an attempt
in flight may add up to ``timeout_s``). Anything else (HTTP 400, 401) fails at once.
"""

from __future__ import annotations

import email.utils
import logging
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

from rag_bench.errors import ConfigError

log = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R")
MAX_WAIT_S = 30.0


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 5
    backoff_s: float = 1.0
    max_total_s: float = 300.0

    @classmethod
    def from_config(cls, cfg) -> RetryPolicy:
        return cls(cfg.max_retries, cfg.backoff_s, cfg.max_total_s)

    def wait(self, retry: int, rng: Callable[[], float] = random.random) -> float:
        """Seconds before retry number ``retry`` (from 1): capped doubling with equal jitter."""
        return min(MAX_WAIT_S, self.backoff_s * 2 ** (retry - 1)) * (0.5 + rng() / 2)


@dataclass(frozen=True)
class Verdict:
    """How a failed attempt is handled: ``retry`` or not, why, and the server's Retry-After."""

    retry: bool
    reason: str
    retry_after: float | None = None


class CallFailed(Exception):
    """A call failed for good: ``reason``, after ``attempts`` attempts in ``seconds``."""

    def __init__(self, reason: str, attempts: int, seconds: float) -> None:
        self.reason, self.attempts, self.seconds = reason, attempts, seconds
        super().__init__(f"{reason} ({attempts} attempt{'s' * (attempts > 1)} in {seconds:.1f} s)")


COUNTS = ("requests", "retries", "texts", "cached", "tokens")


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
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **counts: int) -> None:
        with self._lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)

    @property
    def estimated_cost_usd(self) -> float | None:
        return None if self.price_per_million is None else self.tokens * self.price_per_million / 1e6

    def as_dict(self) -> dict:
        names = ("model", "price_per_million", *COUNTS)
        return {**{n: getattr(self, n) for n in names}, "estimated_cost_usd": self.estimated_cost_usd}

    def since(self, before: dict) -> dict:
        """``as_dict()`` counting only what happened after ``before`` (an earlier ``as_dict()``)."""
        now = self.as_dict()
        counts = {n: now[n] - before[n] for n in COUNTS}
        price = self.price_per_million
        return {**now, **counts, "estimated_cost_usd": None if price is None else counts["tokens"] * price / 1e6}


def call_with_retries(
    call: Callable[[], T],
    policy: RetryPolicy,
    classify: Callable[[Exception], Verdict | None],
    usage: Usage | None = None,
    label: str = "request",
) -> T:
    """``call()``, retried as the module docstring says; CallFailed when it fails for good.

    ``classify`` returns None for exceptions that are bugs, not service failures: they propagate.
    """
    start = time.monotonic()
    for attempt in range(1, policy.max_retries + 2):
        if usage is not None:
            usage.add(requests=1, retries=int(attempt > 1))
        try:
            return call()
        except Exception as exc:
            verdict = classify(exc)
            if verdict is None:
                raise
        elapsed = time.monotonic() - start
        if not verdict.retry or attempt > policy.max_retries:
            raise CallFailed(verdict.reason, attempt, elapsed) from None
        wait = verdict.retry_after if verdict.retry_after is not None else policy.wait(attempt)
        if elapsed + wait > policy.max_total_s:
            reason = f"{verdict.reason}; the next wait ({wait:.1f} s) would pass max_total_s ({policy.max_total_s:g} s)"
            raise CallFailed(reason, attempt, elapsed) from None
        log.warning("%s: %s; retry %d of %d in %.1f s", label, verdict.reason, attempt, policy.max_retries, wait)
        time.sleep(wait)
    raise AssertionError("unreachable")


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: a number of seconds or an HTTP date; None if absent or bad."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def bounded_map(fn: Callable[[T], R], items: Sequence[T], concurrency: int) -> list[R]:
    """``[fn(x) for x in items]`` with at most ``concurrency`` calls at once; the first error is raised."""
    if concurrency <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(max_workers=min(concurrency, len(items))) as pool:
        futures = [pool.submit(fn, x) for x in items]
        try:
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            raise


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


@cache
def price_table() -> dict[str, float]:
    """USD per million tokens by model, from ``configs/prices.yaml``."""
    import yaml

    from rag_bench.data.bundled import project_folder

    path = project_folder("configs") / "prices.yaml"
    return {str(k): float(v) for k, v in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items()}


def price_per_million(model: str, override: float | None) -> float | None:
    """The configured override, else the table's price for ``model``, else None (unknown)."""
    return override if override is not None else price_table().get(model)


def check_settings(prefix: str, cfg) -> None:
    """ConfigError for an API setting out of range (``prefix`` is embedder or reranker)."""
    lows = {"concurrency": 1, "max_retries": 0, "batch_size": 1, "max_tokens_per_batch": 1}
    for name, low in lows.items():
        value = getattr(cfg, name, low)
        if value is not None and value < low:
            raise ConfigError(f"{prefix}.{name} ({value}) must be at least {low}")
    if getattr(cfg, "batch_size", 1) > 1000:
        raise ConfigError(f"{prefix}.batch_size ({cfg.batch_size}) must be at most 1000 (the Voyage API limit)")
    for name in ("backoff_s", "timeout_s", "max_total_s"):
        if getattr(cfg, name) <= 0:
            raise ConfigError(f"{prefix}.{name} ({getattr(cfg, name)}) must be positive")
    if cfg.price_per_million is not None and cfg.price_per_million < 0:
        raise ConfigError(f"{prefix}.price_per_million ({cfg.price_per_million}) must not be negative")
    if cfg.base_url is not None and urlsplit(cfg.base_url).scheme not in ("http", "https"):
        raise ConfigError(f"{prefix}.base_url ({cfg.base_url!r}) must start with http:// or https://")


# --- Voyage AI: the key, the client, and which of its errors are worth a retry ---


def voyage_api_key(selected: str) -> str:
    """The key from ``$VOYAGE_API_KEY_PATH`` (a file, as the client reads it) or ``$VOYAGE_API_KEY``."""
    path = os.environ.get("VOYAGE_API_KEY_PATH")
    if path:
        try:
            key = Path(path).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            problem = exc.strerror or exc
            raise ConfigError(f"{selected} needs a key, but VOYAGE_API_KEY_PATH cannot be read: {problem}") from None
        if key:
            return key
    key = os.environ.get("VOYAGE_API_KEY", "").strip()
    if not key:
        raise ConfigError(
            f"{selected} needs a Voyage AI API key: set VOYAGE_API_KEY (or VOYAGE_API_KEY_PATH to a file holding it)"
        )
    return key


def voyage_base_url(url: str | None) -> str | None:
    """The API root: ``http://host:port`` gains ``/v1``; a URL with a path is kept; None = the client's default."""
    if url is None:
        return None
    url = url.rstrip("/")
    return url + "/v1" if urlsplit(url).path == "" else url


def voyage_client(api_key: str, base_url: str | None, timeout_s: float):
    """The official client with its own retries off, so that ours are the only ones (and counted)."""
    import voyageai

    return voyageai.Client(api_key=api_key, max_retries=0, timeout=timeout_s, base_url=voyage_base_url(base_url))


def classify_voyage(exc: Exception) -> Verdict | None:
    """Retry 429, 5xx, timeouts and connection errors; fail at once on the rest; None for non-API errors."""
    from voyageai import error

    if not isinstance(exc, error.VoyageError):
        return None
    status = exc.http_status
    if isinstance(exc, error.RateLimitError):
        return Verdict(True, "HTTP 429 rate limited", parse_retry_after(exc.headers.get("retry-after")))
    if isinstance(exc, error.Timeout):
        return Verdict(True, "no response before timeout_s")
    if isinstance(exc, error.APIConnectionError):
        return Verdict(True, f"connection failed ({type(exc.__cause__).__name__})")
    if status is not None and status >= 500:
        return Verdict(True, f"HTTP {status} server error")
    if isinstance(exc, error.AuthenticationError):
        return Verdict(False, "HTTP 401: the API key was rejected; check VOYAGE_API_KEY")
    return Verdict(False, f"HTTP {status}: {exc.user_message}" if status else str(exc.user_message))


def redact(text: str, secret: str) -> str:
    """``text`` with every occurrence of ``secret`` masked."""
    return text.replace(secret, "***") if secret else text
