"""Every API reranker's one mechanism (Voyage, Cohere, TEI, the ``/v1/rerank`` schema): a provider only says
how one request is sent (a ``Transport``); the score cache, batching, concurrency, pacing, retries, usage
and errors are here.

A cross-encoder scores each (question, passage) pair on its own, so scores are cached per (model,
question, passage text): one deep pass serves every shallower ``reranker.depth`` or ``keep``, and only
passages never scored for a question are sent. Cache layout: namespace ``rerank/<model>/<sha256(question)>``,
one entry per request, JSON ``{sha256(passage): score}``, written as soon as the request answers, so a
killed run resumes with what it had. A request holds at most the provider's documents per request and
at most its token budget, "query tokens x documents + document tokens", counted with ``estimate_tokens``.
``prefetch(questions, candidates)`` scores every question's candidates before the pipeline asks for them
one by one: ``2 x concurrency`` questions at a time take turns at ``concurrency`` requests in flight
(``rag_bench.remote.slots``: a slot is freed as an answer arrives, so the next request is sent while the
last answer is parsed and cached).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.remote.http import MalformedAnswer
from rag_bench.remote.pace import Pacer
from rag_bench.remote.prices import price_per_million, price_per_search
from rag_bench.remote.retry import CallFailed, RetryPolicy, Verdict, bounded_map, call_with_retries
from rag_bench.remote.settings import ApiSettings
from rag_bench.remote.slots import Slots
from rag_bench.remote.usage import Usage, estimate_tokens, plan_batches
from rag_bench.rerank.base import CutRerankerConfig


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class RemoteRerankerConfig(ApiSettings, CutRerankerConfig):
    """An API reranker's shared settings: ``ApiSettings`` (endpoint, concurrency, retries) and the cut."""

    def __post_init__(self) -> None:
        CutRerankerConfig.__post_init__(self)
        self.check_api("reranker")


class Transport(Protocol):
    """How one provider sends one rerank request."""

    def request(self, question: str, documents: list[str]) -> tuple[list[tuple[int, float]], int, int, dict]:
        """``(index, score)`` per document, billed tokens, billed searches, the answer's lower-cased headers."""
        ...

    def classify(self, exc: Exception) -> Verdict | None: ...

    hooked: bool  # its HTTP client calls ``slots.sending`` and ``slots.answered`` (``rag_bench.remote.slots``)


@dataclass(frozen=True)
class Batching:
    """Documents and estimated tokens one request may hold."""

    documents: int
    tokens: int


class RemoteReranker:
    """API rerank scores (higher is more relevant), cached on disk (see the module docstring)."""

    def __init__(
        self, name: str, label: str, transport: Transport, batching: Batching, cfg, cache: DiskCache, secret: str | None
    ) -> None:
        self.name = name  # e.g. "cohere/rerank-v3.5"
        self.model = cfg.model
        self.label = label
        self.transport = transport
        self.batching = batching
        self.cache = cache
        self.concurrency = cfg.concurrency
        self.slots = Slots(cfg.concurrency)
        self.policy = RetryPolicy.from_config(cfg)
        self.pacer = Pacer()
        self.usage = Usage(cfg.model, price_per_million(cfg.model, cfg.price_per_million))
        self.usage.price_per_search = None if cfg.price_per_million is not None else price_per_search(cfg.model)
        self.questions_done = 0  # questions whose scores are all cached
        self.cache_model = name.replace("/", "--")  # the model's folder in the cache namespace
        self._secret = secret or ""
        self._scores: dict[str, dict[str, float]] = {}  # sha(question) -> sha(passage) -> score
        self._lock = threading.Lock()

    @property
    def estimated_cost_usd(self) -> float | None:
        return self.usage.estimated_cost_usd

    def score(self, question: str, passages: Sequence[str]) -> np.ndarray:
        """(len(passages),) float64 relevance scores, from the cache or the API."""
        keys = [sha(p) for p in passages]
        known = self._known(question)
        missing = list({k: p for k, p in zip(keys, passages, strict=True) if k not in known}.items())
        self.usage.add(cached=sum(k in known for k in keys))
        q = estimate_tokens(question)
        costs = [q + estimate_tokens(p) for _, p in missing]
        try:
            for first, end in plan_batches(costs, self.batching.documents, self.batching.tokens):
                self._request(question, missing[first:end], known)
        except CallFailed as exc:
            if exc.setting:
                raise ConfigError(self._redact(f"{self.label} refused the request: {exc.reason}")) from None
            raise ServiceError(
                self._redact(
                    f"{self.label} failed: {exc}; {self.questions_done} questions were scored and cached in this run"
                    " before the failure, and a rerun sends only what is not cached"
                )
            ) from None
        with self._lock:
            self.questions_done += 1
        return np.array([known[k] for k in keys], dtype=np.float64)

    def prefetch(self, questions: Sequence[str], candidates: Sequence[Sequence[str]]) -> None:
        """Score each question's candidate passages, ``concurrency`` questions at a time."""
        merged: dict[str, dict[str, None]] = {}  # one task per distinct question
        for question, passages in zip(questions, candidates, strict=True):
            merged.setdefault(question, {}).update(dict.fromkeys(passages))
        bounded_map(lambda item: self.score(item[0], list(item[1])), list(merged.items()), self.slots.workers)

    def _known(self, question: str) -> dict[str, float]:
        qkey = sha(question)
        with self._lock:
            if qkey not in self._scores:
                found: dict[str, float] = {}
                for _, payload in self.cache.entries(self._namespace(question)):
                    found.update(json.loads(payload))
                self._scores[qkey] = found
            return self._scores[qkey]

    def _namespace(self, question: str) -> str:
        return f"rerank/{self.cache_model}/{sha(question)}"

    def _request(self, question: str, batch: list[tuple[str, str]], known: dict[str, float]) -> None:
        docs = [p for _, p in batch]

        def call():
            with self.slots.held(getattr(self.transport, "hooked", False), self.pacer):  # slots.py: on the wire
                pairs, tokens, searches, headers = self.transport.request(question, docs)
            indices = sorted(i for i, _ in pairs)
            if indices != list(range(len(docs))) or not all(np.isfinite(s) for _, s in pairs):
                raise MalformedAnswer(f"{len(pairs)} scores for {len(docs)} documents")
            return pairs, tokens, searches, headers

        pairs, tokens, searches, headers = call_with_retries(
            call, self.policy, self.transport.classify, self.usage, self.label, self.pacer, wait=False
        )
        self.pacer.learn(headers)
        self.pacer.spend(tokens)
        self.usage.add(texts=len(docs), tokens=tokens, searches=searches)
        scores = {batch[i][0]: float(score) for i, score in pairs}
        entry = hashlib.sha256("".join(sorted(scores)).encode()).hexdigest()
        self.cache.put(self._namespace(question), entry, json.dumps(scores, sort_keys=True).encode("utf-8"))
        known.update(scores)

    def _redact(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text
