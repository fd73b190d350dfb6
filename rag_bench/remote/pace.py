"""Pacing requests under the rate limit a server announces, so a run does not live on 429s.

A server may announce its limits in every answer (OpenAI's and most compatible servers' headers):
``x-ratelimit-limit-requests`` (requests per minute) and ``x-ratelimit-limit-tokens`` (tokens per
minute). Once one is seen, request starts are spaced so that the rate stays at ``SAFETY`` times the
limit: each request start takes ``60 / (SAFETY x requests per minute)`` seconds of the request clock,
and the billed tokens of each answer take ``60 x tokens / (SAFETY x tokens per minute)`` seconds of the
token clock; a request starts when both clocks allow. A 429's Retry-After holds every request that
shares the pacer, not only the one refused. Without an announcement nothing is spaced (concurrency
alone bounds the load), and a 429 without one still holds the others for its Retry-After.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping

SAFETY = 0.97  # share of the announced rate used: timing noise must not push requests over the limit
WINDOW_S = 60.0  # the announced limits are per minute
HEADERS = {"requests": "x-ratelimit-limit-requests", "tokens": "x-ratelimit-limit-tokens"}


def lower_headers(headers: Mapping[str, str] | None) -> dict[str, str]:
    """Header names lower-cased (clients differ in case); {} for None."""
    return {str(k).lower(): str(v) for k, v in (headers or {}).items()}


def announced(headers: Mapping[str, str] | None) -> dict[str, float]:
    """``{"requests": per minute, "tokens": per minute}`` as far as ``headers`` announce them (positive numbers)."""
    found = lower_headers(headers)
    limits = {}
    for kind, name in HEADERS.items():
        try:
            value = float(found[name])
        except (KeyError, ValueError):
            continue
        if value > 0:
            limits[kind] = value
    return limits


class Pacer:
    """Spaces the request starts of one model's client (shared by its worker threads)."""

    def __init__(self) -> None:
        self.per_minute: dict[str, float] = {}  # the limits announced so far
        self._lock = threading.Lock()
        self._requests_at = 0.0  # monotonic time from which the next request may start
        self._tokens_at = 0.0  # monotonic time by which the tokens billed so far are paid for

    def learn(self, headers: Mapping[str, str] | None) -> None:
        """Take the limits ``headers`` announce (the latest answer's win)."""
        limits = announced(headers)
        if limits:
            with self._lock:
                self.per_minute.update(limits)

    def wait(self) -> None:
        """Block until a request may start under the announced limits, and take its turn."""
        with self._lock:
            now = time.monotonic()
            start = max(now, self._requests_at, self._tokens_at)
            rate = self.per_minute.get("requests")
            self._requests_at = start + (WINDOW_S / (SAFETY * rate) if rate else 0.0)
        if start > now:
            time.sleep(start - now)

    def spend(self, tokens: int) -> None:
        """Charge the billed ``tokens`` of an answer to the token clock (when a token limit is known)."""
        with self._lock:
            rate = self.per_minute.get("tokens")
            if rate and tokens > 0:
                self._tokens_at = max(self._tokens_at, time.monotonic()) + WINDOW_S * tokens / (SAFETY * rate)

    def hold(self, seconds: float) -> None:
        """No request starts for ``seconds`` (a 429's Retry-After)."""
        with self._lock:
            self._requests_at = max(self._requests_at, time.monotonic() + seconds)
