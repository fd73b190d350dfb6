"""Every API embedder's one mechanism (Voyage, OpenAI-compatible, Cohere, TEI): a provider only says how one
request is sent (a ``Transport``); batching, concurrency, pacing, retries, usage and errors are here.

- Batching: a request holds at most ``batch_size`` texts and at most the model's tokens per request,
  counted with ``estimate_tokens`` (an over-estimate), so no request is refused for its size.
- Concurrency: at most ``concurrency`` requests in flight, from one pool of ``2 x concurrency`` workers
  per embedder that take turns at ``concurrency`` slots (``rag_bench.remote.slots``): a slot is freed
  when an answer arrives, so the next request is sent while the last answer is parsed. ``submit``
  hands back a future per group of texts, so the cache loop (``cached.py``) keeps the pool busy while
  it commits finished batches one by one (a killed run loses only the requests in flight).
- Retries and pacing: ``rag_bench.remote.retry`` (429 with Retry-After, 5xx, resets, timeouts,
  malformed answers) and ``rag_bench.remote.pace`` (the rate limit a server announces).
- Input limits: ``max_tokens`` is the model's input limit; ``count_tokens`` estimates each text's
  tokens with the bundled WordPiece tokenizer (the API's own tokenizer is not at hand), for the
  count of chunks the model truncates.
- Keys: held by the transport's client only; every message is redacted of the key.
- Usage: requests, retries, texts and billed tokens (from each answer) in ``usage``, priced from
  ``configs/prices.yaml`` (``remote/prices.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar, Protocol

import numpy as np

from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.embed.base import INPUT_TYPES, EmbedderConfig, normalise
from rag_bench.remote.http import MalformedAnswer
from rag_bench.remote.pace import Pacer
from rag_bench.remote.prices import price_per_million
from rag_bench.remote.retry import CallFailed, RetryPolicy, Verdict, call_with_retries
from rag_bench.remote.settings import ApiSettings
from rag_bench.remote.slots import Slots
from rag_bench.remote.usage import Usage, estimate_tokens, plan_batches


@dataclass
class RemoteEmbedderConfig(ApiSettings, EmbedderConfig):
    """An API embedder's shared settings: ``ApiSettings`` (endpoint, concurrency, retries) and batching."""

    batch_size: int = 128  # texts per request
    max_tokens_per_batch: int | None = None  # null = the model's documented limit per request

    BATCH_LIMIT: ClassVar[int] = 1000  # the most texts the provider's API takes in one request
    PROVIDER: ClassVar[str] = "the"

    def __post_init__(self) -> None:
        EmbedderConfig.__post_init__(self)
        self.check_api("embedder")
        if self.batch_size < 1:
            raise ConfigError(f"embedder.batch_size ({self.batch_size}) must be at least 1")
        if self.batch_size > self.BATCH_LIMIT:
            raise ConfigError(
                f"embedder.batch_size ({self.batch_size}) must be at most {self.BATCH_LIMIT} (the {self.PROVIDER} API"
                " limit)"
            )
        if self.max_tokens_per_batch is not None and self.max_tokens_per_batch < 1:
            raise ConfigError(f"embedder.max_tokens_per_batch ({self.max_tokens_per_batch}) must be at least 1")


class Transport(Protocol):
    """How one provider sends one request of texts."""

    def request(self, texts: list[str], input_type: str) -> tuple[np.ndarray, int, dict[str, str]]:
        """(len(texts), d) raw vectors in input order, billed tokens, the answer's lower-cased headers.

        Raises the client's errors (classified by ``classify``), or ``MalformedAnswer``.
        """
        ...

    def classify(self, exc: Exception) -> Verdict | None: ...

    hooked: bool  # its HTTP client calls ``slots.sending`` and ``slots.answered`` (``rag_bench.remote.slots``)


@dataclass(frozen=True)
class Limits:
    """One model's sizes: output ``dimension``, ``max_tokens`` per input, tokens and texts per request."""

    dimension: int
    max_tokens: int
    request_tokens: int
    batch_size: int


class RemoteEmbedder:
    """Embeddings from an API, for one model at one output dimension (see the module docstring)."""

    matryoshka = False  # True when built at the largest dimension to serve smaller ones by truncation

    def __init__(self, name: str, label: str, transport: Transport, limits: Limits, cfg, secret: str | None) -> None:
        self.name = name  # e.g. "openai/text-embedding-3-small@1536": names the vectors in the cache
        self.label = label  # e.g. "OpenAI embeddings (text-embedding-3-small)", in messages
        self.model = cfg.model
        self.dimension = limits.dimension
        self.max_tokens = limits.max_tokens
        self.request_tokens = limits.request_tokens
        self.batch_size = limits.batch_size
        self.concurrency = cfg.concurrency
        self.slots = Slots(cfg.concurrency)
        self.transport = transport
        self.policy = RetryPolicy.from_config(cfg)
        self.pacer = Pacer()
        self.usage = Usage(cfg.model, price_per_million(cfg.model, cfg.price_per_million))
        self.returned = 0  # texts handed back by finished calls (the pipeline caches each at once)
        self._secret = secret or ""

    @property
    def estimated_cost_usd(self) -> float | None:
        return self.usage.estimated_cost_usd

    @property
    def in_flight(self) -> int:
        """Texts to keep submitted so that every worker has a request and a slot's next one is queued."""
        return (self.slots.workers + self.concurrency) * self.batch_size

    @cached_property
    def _pool(self) -> ThreadPoolExecutor:
        return ThreadPoolExecutor(self.slots.workers, thread_name_prefix="embed-api")

    def embed(self, texts: Sequence[str], input_type: str) -> np.ndarray:
        """(len(texts), dimension) float32 unit rows."""
        return self.submit(texts, input_type).result()

    def submit(self, texts: Sequence[str], input_type: str) -> Future:
        """A future of ``embed(texts, input_type)``: its requests queued now, ``concurrency`` at a time."""
        if input_type not in INPUT_TYPES:
            raise ValueError(f"input_type {input_type!r} is not one of {INPUT_TYPES}")
        texts = list(texts)
        out: Future = Future()
        if not texts:
            out.set_result(np.zeros((0, self.dimension), np.float32))
            return out
        ranges = plan_batches([estimate_tokens(t) for t in texts], self.batch_size, self.request_tokens)
        parts = [self._pool.submit(self._request, texts[a:b], input_type) for a, b in ranges]
        remaining, lock = [len(parts)], threading.Lock()

        def gather(_: Future) -> None:
            with lock:
                remaining[0] -= 1
                last = remaining[0] == 0
            if last:
                try:
                    vectors = np.concatenate([part.result() for part in parts])
                except CallFailed as exc:
                    out.set_exception(self._failure(exc))
                except BaseException as exc:  # a bug, or a refused dimension: as raised
                    out.set_exception(exc)
                else:
                    self.returned += len(texts)
                    out.set_result(vectors)

        for part in parts:
            part.add_done_callback(gather)
        return out

    def count_tokens(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts),) estimated tokens per text, with the bundled WordPiece tokenizer."""
        from rag_bench.embed.local import load_tokenizer

        counter = _counter(load_tokenizer)
        return np.array([len(e.ids) for e in counter.encode_batch(list(texts))], dtype=np.int64)

    def _request(self, texts: list[str], input_type: str) -> np.ndarray:
        def call() -> tuple[np.ndarray, int, dict[str, str]]:
            with self.slots.held(getattr(self.transport, "hooked", False), self.pacer):  # slots.py: on the wire
                vectors, tokens, headers = self.transport.request(texts, input_type)
            vectors = np.asarray(vectors, dtype=np.float32)
            if vectors.ndim != 2 or len(vectors) != len(texts) or not np.isfinite(vectors).all():
                raise MalformedAnswer(f"{vectors.shape} finite vectors for {len(texts)} texts")
            return vectors, tokens, headers

        vectors, tokens, headers = call_with_retries(
            call, self.policy, self.transport.classify, self.usage, self.label, self.pacer, wait=False
        )
        self.pacer.learn(headers)
        self.pacer.spend(tokens)
        self.usage.add(texts=len(texts), tokens=tokens)
        if vectors.shape[1] != self.dimension:
            raise ConfigError(
                self._redact(
                    f"{self.label} returned vectors of dimension {vectors.shape[1]}, not embedder.dimension "
                    f"({self.dimension}): set embedder.dimension to {vectors.shape[1]} or to a size the model takes"
                )
            )
        return normalise(vectors)

    def _failure(self, exc: CallFailed) -> Exception:
        if exc.setting:
            return ConfigError(self._redact(f"{self.label} refused the request: {exc.reason}"))
        return ServiceError(
            self._redact(
                f"{self.label} failed: {exc}; {self.returned} texts were embedded and cached in this run before"
                " the failure, and a rerun sends only the texts not cached"
            )
        )

    def _redact(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text


_COUNTERS: dict[int, object] = {}


def _counter(load_tokenizer):
    """The WordPiece tokenizer without truncation, loaded once per process."""
    if 0 not in _COUNTERS:
        _COUNTERS[0] = load_tokenizer(None)
    return _COUNTERS[0]
