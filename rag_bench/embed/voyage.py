"""Voyage AI embeddings through the official ``voyageai`` client (``embedder=voyage``).

Each request holds at most ``batch_size`` texts (API limit 1,000) and at most the model's
documented tokens per request (docs.voyageai.com/reference/embeddings-api: 1M for the lite
models, 320K for voyage-4, voyage-3.5 and voyage-2, 120K for the large, code, finance and law
models; 120K is assumed for a model not listed). Each input may hold 32,000 tokens (16,000 for
voyage-code-2, voyage-law-2 and voyage-large-2; 4,000 for voyage-2). Batching, concurrency,
retries and usage are every API embedder's (``remote.py``); billed tokens come from each
response's ``usage.total_tokens``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.embed.remote import Limits, RemoteEmbedder, RemoteEmbedderConfig
from rag_bench.remote.voyage import classify_voyage, hook_session, voyage_api_key, voyage_client

MAX_TEXTS = 1000
DEFAULT_TOKEN_LIMIT = 120_000
INPUT_LIMITS = {"voyage-code-2": 16_000, "voyage-law-2": 16_000, "voyage-large-2": 16_000, "voyage-2": 4_000}
DEFAULT_INPUT_LIMIT = 32_000
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
class VoyageConfig(RemoteEmbedderConfig):
    """Voyage AI embeddings through the official client (needs VOYAGE_API_KEY; ``embedder=voyage``)."""

    name: str = "voyage"
    model: str | None = "voyage-3.5"
    dimension: int | None = 1024  # output_dimension; null = the model's default
    batch_size: int = 128  # texts per request (the Voyage API takes at most 1000)

    BATCH_LIMIT: ClassVar[int] = MAX_TEXTS
    PROVIDER: ClassVar[str] = "Voyage"


class VoyageTransport:
    """One request to Voyage's embeddings route through the official client."""

    hooked = True  # its session takes the slot as a request goes out, frees it as the answer comes (remote/voyage.py)

    def __init__(self, cfg, api_key: str) -> None:
        self.model = cfg.model
        self.output_dimension = cfg.dimension  # None: let the API use the model's default
        self._client = voyage_client(api_key, cfg.base_url, cfg.timeout_s)

    def request(self, texts: list[str], input_type: str) -> tuple[np.ndarray, int, dict[str, str]]:
        hook_session()  # the slot is taken as the request goes out (before the call, for a client without hooks)
        response = self._client.embed(
            texts, model=self.model, input_type=input_type, output_dimension=self.output_dimension
        )
        return np.asarray(response.embeddings, dtype=np.float32), int(response.total_tokens), {}

    def classify(self, exc: Exception):
        return classify_voyage(exc)


def voyage_embedder(cfg, api_key: str) -> RemoteEmbedder:
    """Voyage embeddings of one model at one output dimension."""
    dimension = cfg.dimension or NATIVE_DIMENSIONS[cfg.model]
    limits = Limits(
        dimension=dimension,
        max_tokens=INPUT_LIMITS.get(cfg.model, DEFAULT_INPUT_LIMIT),
        request_tokens=cfg.max_tokens_per_batch or TOKEN_LIMITS.get(cfg.model, DEFAULT_TOKEN_LIMIT),
        batch_size=min(cfg.batch_size, MAX_TEXTS),
    )
    name = f"voyage/{cfg.model}@{dimension}"
    return RemoteEmbedder(name, f"Voyage embeddings ({cfg.model})", VoyageTransport(cfg, api_key), limits, cfg, api_key)


def build(cfg) -> RemoteEmbedder:
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
        embedder = voyage_embedder(dataclasses.replace(cfg, dimension=largest), key)
        embedder.matryoshka = True
        return embedder
    return voyage_embedder(cfg, key)
