"""Calling a remote API: retries with backoff, and bounded concurrency.

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
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from rag_bench.remote.pace import Pacer
from rag_bench.remote.usage import Usage

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
        """The policy of an ``ApiSettings`` (or any object with its three fields)."""
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
    setting: bool = False  # the request was refused for a setting the user can fix (the reason names it)
    headers: dict[str, str] | None = None  # the answer's headers, lower-cased names (rate limits announced)


class CallFailed(Exception):
    """A call failed for good: ``reason``, after ``attempts`` attempts in ``seconds``."""

    def __init__(self, reason: str, attempts: int, seconds: float, setting: bool = False) -> None:
        self.reason, self.attempts, self.seconds = reason, attempts, seconds
        self.setting = setting  # a setting the user can fix was refused (the reason names it)
        super().__init__(f"{reason} ({attempts} attempt{'s' * (attempts > 1)} in {seconds:.1f} s)")


def call_with_retries(
    call: Callable[[], T],
    policy: RetryPolicy,
    classify: Callable[[Exception], Verdict | None],
    usage: Usage | None = None,
    label: str = "request",
    pacer: Pacer | None = None,
    wait: bool = True,
) -> T:
    """``call()``, retried as the module docstring says; CallFailed when it fails for good.

    ``classify`` returns None for exceptions that are bugs, not service failures: they propagate.
    With a ``pacer`` each attempt waits for its turn under the rate limit the server announced,
    learns from a refusal's headers, and a Retry-After holds every request that shares the pacer; ``wait=False``
    leaves the wait for a turn to ``call`` (``slots.py`` waits once a request holds its slot).
    """
    start = time.monotonic()
    for attempt in range(1, policy.max_retries + 2):
        if pacer is not None and wait:
            pacer.wait()
        if usage is not None:
            usage.add(requests=1, retries=int(attempt > 1))
        try:
            return call()
        except Exception as exc:
            verdict = classify(exc)
            if verdict is None:
                raise
        elapsed = time.monotonic() - start
        if pacer is not None:
            pacer.learn(verdict.headers)
        if not verdict.retry or attempt > policy.max_retries:
            raise CallFailed(verdict.reason, attempt, elapsed, verdict.setting) from None
        wait = verdict.retry_after if verdict.retry_after is not None else policy.wait(attempt)
        if pacer is not None and verdict.retry_after is not None:
            pacer.hold(wait)
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
