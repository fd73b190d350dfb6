"""A retrieval service over HTTP (``retrieval=http retrieval.url=URL``).

Per question it POSTs ``{"id": "q1", "question": "...", "k": depth}`` (JSON) and expects
``{"results": [...]}``, results best first as in ``results.py`` (other top-level keys are ignored).
With ``retrieval.filter_mode=pre`` a question's metadata filter goes along as ``"filter"`` (the
question's filter object, keys sorted), for the service to apply; ``leak@k`` says what got through.
Questions go out ``concurrency`` at a time; a 429, a 5xx, a timeout or a dropped connection is
retried with backoff (``rag_bench.remote.retry``: Retry-After wins), anything else fails at once.
A redirect to another origin fails at once, before the question or the bearer token goes there.
Each answer is checked, then cached by (url, question id, question text, depth, filter sent) unless
``retrieval.cache=false``, so a rerun, a sweep over ks or a run killed half way costs no request
for the questions already answered. ``stats.retrieval.http`` holds the requests, retries, answers
from the cache, and the latency of the requests sent (p50, p95 by linear interpolation, max).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import numpy as np

from rag_bench.core.cache import digest
from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.core.progress import progress
from rag_bench.remote.settings import ApiSettings
from rag_bench.remote.usage import Usage
from rag_bench.retrieve.base import Candidates, Query, RetrievalConfig
from rag_bench.retrieve.external.results import Ranked, ResultReader, Where, to_candidates
from rag_bench.retrieve.resources import Resources

if TYPE_CHECKING:  # urllib.request, email and the retry machinery load when a service is asked (10-15 ms)
    from rag_bench.remote.retry import Verdict

NAMESPACE = "http-retrieval"
SHOWN = 200  # characters of a bad answer quoted in an error


@dataclass
class HttpSettings:
    """A retrieval service's settings (also keys of ``retrieval=hybrid``); retry keys as ``ApiSettings``."""

    url: str | None = None  # the endpoint questions are POSTed to
    cache: bool = True  # answers cached by (url, question, depth); false = ask the service every run
    token_env: str | None = None  # an environment variable whose value is sent as "Authorization: Bearer ..."
    concurrency: int = 4  # questions in flight at once
    max_retries: int = 5  # retries after a 429, 5xx, timeout or dropped connection
    backoff_s: float = 1.0  # first retry waits about this long, doubling up to 30 s; Retry-After wins
    timeout_s: float = 30.0  # per request
    max_total_s: float = 300.0  # per question, retries and waits included

    def check(self) -> None:
        if self.url is not None and urlsplit(self.url).scheme not in ("http", "https"):
            raise ConfigError(f"retrieval.url ({self.url!r}) must start with http:// or https://")
        retry_keys = ("concurrency", "max_retries", "backoff_s", "timeout_s", "max_total_s")
        ApiSettings(**{key: getattr(self, key) for key in retry_keys}).check_api("retrieval")


@dataclass
class HttpConfig(HttpSettings, RetrievalConfig):
    mode: str = "http"
    # your system applies its own filters: its results are scored as returned, and leak@k says what got through
    filter_mode: str = "none"


@dataclass(frozen=True)
class _Answer:
    ranking: list[Ranked]
    latency_s: float | None  # None: served from the cache


class HttpRetriever:
    """Asks the service at ``url`` for each question's top ``depth``."""

    name = "http"
    applies_filters = True  # with filter_mode=pre each question's filter is sent, and the service applies it

    def __init__(self, cfg: HttpSettings, resources: Resources) -> None:
        if cfg.url is None:
            raise ConfigError("retrieval=http needs the service's endpoint: retrieval.url=http://host:port/path")
        self.cfg, self.resources = cfg, resources
        self.headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if cfg.token_env is not None:
            token = os.environ.get(cfg.token_env, "").strip()
            if not token:
                raise ConfigError(f"retrieval.token_env names {cfg.token_env}, which is not set; export it first")
            self.headers["Authorization"] = f"Bearer {token}"
        # whose answers these are: answers cached under one credential are never served to another (another
        # user's permissions); a digest of the header, so the secret itself is never part of a key or a file
        self.identity = digest("credential", self.headers.get("Authorization", ""))
        from rag_bench.remote.redirects import same_origin_opener

        self.usage = Usage("http")
        self._opener = same_origin_opener("retrieval.url")  # the token never follows a redirect elsewhere
        self._lock = threading.Lock()

    def retrieve(self, queries: Sequence[Query], depth: int) -> Candidates:
        from rag_bench.remote.retry import bounded_map

        reader = ResultReader({d.id: d for d in self.resources.dataset.documents})
        before = self.usage.as_dict()
        with progress(len(queries), f"asking {self.cfg.url}", "question") as bar:

            def one(query: Query) -> _Answer:
                answer = self._answer(query, depth, reader)
                bar.update(1)
                return answer

            answers = bounded_map(one, list(queries), self.cfg.concurrency)
        used = self.usage.since(before)
        latencies = [a.latency_s for a in answers if a.latency_s is not None]
        details = {
            "source": self.cfg.url,
            "requests": used["requests"],
            "retries": used["retries"],
            "from_cache": len(answers) - len(latencies),
            "latency_ms": latency_summary(latencies),
        }
        return to_candidates([a.ranking for a in answers], depth, reader.tally, details)

    def _answer(self, query: Query, depth: int, reader: ResultReader) -> _Answer:
        """One question's ranking: from the cache, else from the service (then cached)."""
        from rag_bench.remote.retry import CallFailed, RetryPolicy, call_with_retries

        cache = self.resources.workspace.cache
        asked = (
            (query.id, query.text, depth)
            if query.filter is None
            else (query.id, query.text, depth, query.filter.source)
        )
        key = digest(NAMESPACE, self.cfg.url, self.identity, *asked)
        stored = cache.get(NAMESPACE, key) if self.cfg.cache else None
        if stored is not None:
            return _Answer(self._ranking(query, json.loads(stored), reader), None)
        request = {"id": query.id, "question": query.text, "k": depth}
        if query.filter is not None:  # only filter_mode=pre leaves a filter on the query
            request["filter"] = json.loads(query.filter.source)
        body = json.dumps(request).encode("utf-8")
        policy, label = RetryPolicy.from_config(self.cfg), f"question {query.id}"
        try:
            raw, latency = call_with_retries(lambda: self._post(body), policy, classify, self.usage, label)
        except CallFailed as exc:
            raise ServiceError(
                f"retrieval.url {self.cfg.url}: question {query.id!r} failed: {exc} "
                "(fix: check that the service is up and answers POST requests there)"
            ) from None
        payload = self._parse(query, raw)
        ranking = self._ranking(query, payload, reader)  # checked before it is cached
        if self.cfg.cache:
            cache.put(NAMESPACE, key, json.dumps(payload).encode("utf-8"))
        return _Answer(ranking, latency)

    def _post(self, body: bytes) -> tuple[bytes, float]:
        """The answer's bytes and the seconds it took."""
        import urllib.request

        request = urllib.request.Request(self.cfg.url, data=body, headers=self.headers, method="POST")
        start = time.perf_counter()
        with self._opener.open(request, timeout=self.cfg.timeout_s) as response:
            raw = response.read()
        return raw, time.perf_counter() - start

    def _parse(self, query: Query, raw: bytes) -> dict:
        """The answer as ``{"results": [...]}``; a ServiceError quoting what came back otherwise."""
        shown = raw[:SHOWN].decode("utf-8", "replace") + ("..." if len(raw) > SHOWN else "")
        where = f"retrieval.url {self.cfg.url} answered question {query.id!r} with"
        try:
            payload = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "bytes that are not UTF-8"
            fix = '(fix: answer {"results": [...]})'
            raise ServiceError(f"{where} malformed JSON ({reason}): {shown!r} {fix}") from None
        if not isinstance(payload, dict) or not isinstance(payload.get("results"), list):
            raise ServiceError(f'{where} no "results" list: {shown!r} (fix: answer {{"results": [...]}})')
        return payload

    def _ranking(self, query: Query, payload: dict, reader: ResultReader) -> list[Ranked]:
        with self._lock:  # the reader's counts are shared by the worker threads
            return reader.ranking(payload["results"], Where(f"retrieval.url {self.cfg.url}", question=query.id))


def classify(exc: Exception) -> Verdict | None:
    """Retry 429, 5xx, timeouts and dropped or refused connections; fail at once on other HTTP errors."""
    import urllib.error

    from rag_bench.remote.http import transport_verdict
    from rag_bench.remote.retry import Verdict, parse_retry_after

    if isinstance(exc, urllib.error.HTTPError):
        if exc.code == 429:
            return Verdict(True, "HTTP 429 rate limited", parse_retry_after(exc.headers.get("Retry-After")))
        if exc.code >= 500:
            return Verdict(True, f"HTTP {exc.code} server error")
        detail = exc.read()[:SHOWN].decode("utf-8", "replace")
        return Verdict(False, f"HTTP {exc.code}: {detail!r}")
    return transport_verdict(exc, say_reason=True)


def latency_summary(seconds: Sequence[float]) -> dict[str, float] | None:
    """p50, p95 (numpy's linear interpolation) and max of the requests' latencies, in milliseconds."""
    if not seconds:
        return None
    ms = np.asarray(seconds) * 1000.0
    return {"p50": float(np.percentile(ms, 50)), "p95": float(np.percentile(ms, 95)), "max": float(ms.max())}


def build(cfg: HttpSettings, resources: Resources) -> HttpRetriever:
    return HttpRetriever(cfg, resources)
