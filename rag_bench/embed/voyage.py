"""Voyage AI embeddings through the official ``voyageai`` client (``embedder=voyage``).

Each request holds at most ``batch_size`` texts (API limit 1,000) and at most the model's
documented tokens per request (docs.voyageai.com/reference/embeddings-api: 1M for the lite
models, 320K for voyage-4, voyage-3.5 and voyage-2, 120K for the large, code, finance and law
models; 120K is assumed for a model not listed), counted with ``estimate_tokens``, an
over-estimate. Requests run ``concurrency`` at a time and are retried as ``rag_bench.remote.retry``
says. Billed tokens come from each response's ``usage.total_tokens``.

Pipeline hooks: ``usage`` (a ``api.usage.Usage``: requests, retries, texts, tokens) and
``estimated_cost_usd`` (None when the model's price is unknown).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.embed.base import INPUT_TYPES, EmbedderConfig, normalise
from rag_bench.remote.prices import price_per_million
from rag_bench.remote.retry import CallFailed, RetryPolicy, bounded_map, call_with_retries
from rag_bench.remote.settings import ApiSettings
from rag_bench.remote.usage import Usage, estimate_tokens, plan_batches
from rag_bench.remote.voyage import classify_voyage, redact, voyage_api_key, voyage_client

MAX_TEXTS = 1000
DEFAULT_TOKEN_LIMIT = 120_000
TOKEN_LIMITS = {
    **dict.fromkeys(["voyage-4-lite", "voyage-3.5-lite", "voyage-3-lite"], 1_000_000),
    **dict.fromkeys(["voyage-4", "voyage-3.5", "voyage-3", "voyage-2"], 320_000),
}
# output size when embedder.dimension is null
NATIVE_DIMENSIONS = {
    **dict.fromkeys(
        ["voyage-4-large", "voyage-4", "voyage-4-lite", "voyage-3-large", "voyage-3.5", "voyage-3.5-lite"], 1024
    ),
    **dict.fromkeys(["voyage-3", "voyage-code-3", "voyage-context-3", "voyage-finance-2", "voyage-law-2"], 1024),
    **dict.fromkeys(["voyage-multilingual-2", "voyage-large-2", "voyage-large-2-instruct", "voyage-2"], 1024),
    "voyage-3-lite": 512,
    "voyage-code-2": 1536,
}
# Matryoshka-trained models (output_dimension 256, 512, 1024 or 2048): a smaller dimension is the
# prefix of the largest, renormalised, so a dimension sweep embeds once at 2048 and truncates.
MATRYOSHKA_MAX = dict.fromkeys(
    ["voyage-4-large", "voyage-4", "voyage-4-lite", "voyage-3-large", "voyage-3.5", "voyage-3.5-lite", "voyage-code-3"],
    2048,
)


@dataclass
class VoyageConfig(ApiSettings, EmbedderConfig):
    """Voyage AI embeddings through the official client (needs VOYAGE_API_KEY; ``embedder=voyage``)."""

    name: str = "voyage"
    model: str | None = "voyage-3.5"
    dimension: int | None = 1024  # output_dimension; null = the model's default
    batch_size: int = 128  # texts per request (the Voyage API takes at most 1000)
    max_tokens_per_batch: int | None = None  # null = the model's documented limit per request

    def __post_init__(self) -> None:
        EmbedderConfig.__post_init__(self)
        self.check_api("embedder")
        if self.batch_size < 1:
            raise ConfigError(f"embedder.batch_size ({self.batch_size}) must be at least 1")
        if self.batch_size > 1000:
            raise ConfigError(f"embedder.batch_size ({self.batch_size}) must be at most 1000 (the Voyage API limit)")
        if self.max_tokens_per_batch is not None and self.max_tokens_per_batch < 1:
            raise ConfigError(f"embedder.max_tokens_per_batch ({self.max_tokens_per_batch}) must be at least 1")


class VoyageEmbedder:
    """Voyage embeddings of one model at one output dimension."""

    matryoshka = False  # True when built at the largest dimension to serve smaller ones by truncation

    def __init__(self, cfg, api_key: str) -> None:
        self.model = cfg.model
        self.output_dimension = cfg.dimension  # None: let the API use the model's default
        self.dimension = cfg.dimension or NATIVE_DIMENSIONS[cfg.model]
        self.name = f"voyage/{self.model}@{self.dimension}"
        self.batch_size = min(cfg.batch_size, MAX_TEXTS)
        self.max_tokens = cfg.max_tokens_per_batch or TOKEN_LIMITS.get(self.model, DEFAULT_TOKEN_LIMIT)
        self.concurrency = cfg.concurrency
        self.policy = RetryPolicy.from_config(cfg)
        self.usage = Usage(self.model, price_per_million(self.model, cfg.price_per_million))
        self.returned = 0  # texts handed back by finished embed() calls (the pipeline caches each at once)
        self._client = voyage_client(api_key, cfg.base_url, cfg.timeout_s)
        self._secret = api_key

    @property
    def estimated_cost_usd(self) -> float | None:
        return self.usage.estimated_cost_usd

    def embed(self, texts: Sequence[str], input_type: str) -> np.ndarray:
        """(len(texts), dimension) float32 unit rows; ``input_type`` is sent as Voyage's own."""
        if input_type not in INPUT_TYPES:
            raise ValueError(f"input_type {input_type!r} is not one of {INPUT_TYPES}")
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        ranges = plan_batches([estimate_tokens(t) for t in texts], self.batch_size, self.max_tokens)
        try:
            parts = bounded_map(lambda r: self._request(texts[r[0] : r[1]], input_type), ranges, self.concurrency)
        except CallFailed as exc:
            raise ServiceError(
                redact(
                    f"Voyage embeddings ({self.model}) failed: {exc}; {self.returned} texts were embedded and"
                    " cached in this run before the failure, and a rerun sends only the texts not cached",
                    self._secret,
                )
            ) from None
        self.returned += len(texts)
        return np.concatenate(parts)

    def _request(self, texts: list[str], input_type: str) -> np.ndarray:
        def call():
            return self._client.embed(
                texts, model=self.model, input_type=input_type, output_dimension=self.output_dimension
            )

        response = call_with_retries(
            call, self.policy, classify_voyage, self.usage, f"Voyage embeddings ({self.model})"
        )
        self.usage.add(texts=len(texts), tokens=int(response.total_tokens))
        vectors = np.asarray(response.embeddings, dtype=np.float32)
        if vectors.shape != (len(texts), self.dimension):
            raise ServiceError(
                f"Voyage embeddings ({self.model}) returned shape {vectors.shape} for {len(texts)} texts of"
                f" dimension {self.dimension}; set embedder.dimension to a size the model supports"
            )
        return normalise(vectors)


def build(cfg) -> VoyageEmbedder:
    """The embedder a ``VoyageConfig`` describes; ConfigError before any request."""
    if not cfg.model:
        raise ConfigError("embedder.model must name a Voyage model for embedder=voyage, e.g. voyage-3.5")
    if cfg.dimension is None and cfg.model not in NATIVE_DIMENSIONS:
        raise ConfigError(
            f"embedder.dimension must be set for embedder.model={cfg.model} (its native dimension is not"
            " known to rag-bench), e.g. embedder.dimension=1024"
        )
    key = voyage_api_key("embedder=voyage")
    largest = MATRYOSHKA_MAX.get(cfg.model)
    if largest is not None and cfg.dimension is not None and cfg.dimension < largest:
        # embed at the largest dimension; the pipeline truncates to cfg.dimension (rag_bench/embed/dimension.py)
        embedder = VoyageEmbedder(dataclasses.replace(cfg, dimension=largest), key)
        embedder.matryoshka = True
        return embedder
    return VoyageEmbedder(cfg, key)
