"""Voyage AI rerankers through the official ``voyageai`` client (``reranker=voyage``).

A cross-encoder scores each (question, passage) pair on its own, so scores are cached per
(model, question, passage text): one deep pass serves every shallower ``reranker.depth``, and
only passages never scored for a question are sent. Cache layout: namespace
``rerank/<model>/<sha256(question)>``, one entry per request, JSON ``{sha256(passage): score}``.
A request holds at most 1,000 documents and at most the model's token budget, "query tokens x
documents + document tokens" (docs.voyageai.com/reference/reranker-api: 600K for rerank-2.5,
rerank-2.5-lite, rerank-2 and rerank-2-lite; 300K assumed otherwise), counted with
``estimate_tokens``. Faults are retried as ``rag_bench.remote.retry`` says.

Pipeline hooks: ``prefetch(questions, candidates)`` scores every question's candidates,
``concurrency`` questions at a time, before ``rerank`` asks for them one by one; ``usage`` and
``estimated_cost_usd`` as on ``VoyageEmbedder``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.core.workspace import Workspace
from rag_bench.remote.prices import price_per_million
from rag_bench.remote.retry import CallFailed, RetryPolicy, bounded_map, call_with_retries
from rag_bench.remote.settings import ApiSettings
from rag_bench.remote.usage import Usage, estimate_tokens, plan_batches
from rag_bench.remote.voyage import classify_voyage, redact, voyage_api_key, voyage_client
from rag_bench.rerank.base import CutRerankerConfig

MAX_DOCUMENTS = 1000
TOKEN_LIMITS = dict.fromkeys(["rerank-2.5", "rerank-2.5-lite", "rerank-2", "rerank-2-lite"], 600_000)
DEFAULT_TOKEN_LIMIT = 300_000


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class VoyageRerankerConfig(ApiSettings, CutRerankerConfig):
    """Voyage AI reranker (needs VOYAGE_API_KEY); scores cached per (model, question, passage)."""

    name: str = "voyage"
    model: str = "rerank-2.5"  # or rerank-2.5-lite; others by name

    def __post_init__(self) -> None:
        CutRerankerConfig.__post_init__(self)
        self.check_api("reranker")


class VoyageReranker:
    """Voyage rerank scores (higher is more relevant), cached on disk."""

    def __init__(self, cfg, api_key: str, cache: DiskCache) -> None:
        self.model = cfg.model
        self.name = f"voyage/{self.model}"
        self.cache = cache
        self.concurrency = cfg.concurrency
        self.policy = RetryPolicy.from_config(cfg)
        self.max_tokens = TOKEN_LIMITS.get(self.model, DEFAULT_TOKEN_LIMIT)
        self.usage = Usage(self.model, price_per_million(self.model, cfg.price_per_million))
        self.questions_done = 0  # questions whose scores are all cached
        self._client = voyage_client(api_key, cfg.base_url, cfg.timeout_s)
        self._secret = api_key
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
        costs = self._costs(question, [p for _, p in missing])
        try:
            for first, end in plan_batches(costs, MAX_DOCUMENTS, self.max_tokens):
                self._request(question, missing[first:end], known)
        except CallFailed as exc:
            raise ServiceError(
                redact(
                    f"Voyage rerank ({self.model}) failed: {exc}; {self.questions_done} questions were scored and"
                    " cached in this run before the failure, and a rerun sends only what is not cached",
                    self._secret,
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
        bounded_map(lambda item: self.score(item[0], list(item[1])), list(merged.items()), self.concurrency)

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
        return f"rerank/{self.model.replace('/', '--')}/{sha(question)}"

    def _costs(self, question: str, passages: list[str]) -> list[int]:
        q = estimate_tokens(question)
        return [q + estimate_tokens(p) for p in passages]

    def _request(self, question: str, batch: list[tuple[str, str]], known: dict[str, float]) -> None:
        docs = [p for _, p in batch]

        def call():
            return self._client.rerank(question, docs, model=self.model)

        response = call_with_retries(call, self.policy, classify_voyage, self.usage, f"Voyage rerank ({self.model})")
        self.usage.add(texts=len(docs), tokens=int(response.total_tokens))
        scores = {batch[r.index][0]: float(r.relevance_score) for r in response.results}
        if len(scores) != len(batch):
            raise ServiceError(f"Voyage rerank ({self.model}) returned {len(scores)} scores for {len(batch)} documents")
        entry = hashlib.sha256("".join(sorted(scores)).encode()).hexdigest()
        self.cache.put(self._namespace(question), entry, json.dumps(scores, sort_keys=True).encode("utf-8"))
        known.update(scores)


def build(cfg, ws: Workspace) -> VoyageReranker:
    """The reranker a ``VoyageRerankerConfig`` describes, its scores kept in the workspace's cache; ConfigError
    before any request."""
    if not cfg.model:
        raise ConfigError("reranker.model must name a Voyage reranker for reranker=voyage, e.g. rerank-2.5")
    return VoyageReranker(cfg, voyage_api_key("reranker=voyage"), ws.cache)
