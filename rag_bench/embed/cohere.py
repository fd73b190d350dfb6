"""Cohere embeddings through the official ``cohere`` client, API v2 (``embedder=cohere``).

Documents are sent with ``input_type="search_document"`` and questions with ``"search_query"``
(docs.cohere.com/reference/embed: at most 96 texts a request; embed-v4.0 takes 128K tokens per input and
``output_dimension`` 256, 512, 1024 or 1536, Matryoshka-trained, so a smaller one is served from the
1536-d vector cut and renormalised; the v3 models take 512 tokens and have a fixed size). Billed tokens
come from each answer's ``meta.billed_units.input_tokens``. Batching, concurrency, retries and usage are
every API embedder's (``remote.py``); the key from ``CO_API_KEY`` (``remote/cohere.py``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.embed.remote import Limits, RemoteEmbedder, RemoteEmbedderConfig
from rag_bench.remote.cohere import KEY_VARIABLE, NO_RETRIES, classifier, cohere_client, cohere_key
from rag_bench.remote.http import MalformedAnswer

MAX_TEXTS = 96
INPUT_TYPES = {"document": "search_document", "query": "search_query"}
# model -> (native dimension, tokens per input)
MODELS = {
    "embed-v4.0": (1536, 128_000),
    "embed-english-v3.0": (1024, 512),
    "embed-multilingual-v3.0": (1024, 512),
    "embed-english-light-v3.0": (384, 512),
    "embed-multilingual-light-v3.0": (384, 512),
}
MATRYOSHKA = {"embed-v4.0": (256, 512, 1024, 1536)}


@dataclass
class CohereEmbedderConfig(RemoteEmbedderConfig):
    """Cohere embeddings (needs CO_API_KEY; ``embedder=cohere``)."""

    name: str = "cohere"
    model: str | None = "embed-v4.0"
    dimension: int | None = None  # output_dimension (embed-v4.0: 256, 512, 1024 or 1536); null = native
    batch_size: int = 96  # texts per request (the Cohere API takes at most 96)
    api_key_env: str = KEY_VARIABLE  # the environment variable holding the key

    BATCH_LIMIT: ClassVar[int] = MAX_TEXTS
    PROVIDER: ClassVar[str] = "Cohere"


class CohereTransport:
    """One request to Cohere's v2 embed route."""

    def __init__(self, cfg, api_key: str, dimension: int | None) -> None:
        self.model = cfg.model
        self.output_dimension = dimension
        self._client = cohere_client(api_key, cfg.base_url, cfg.timeout_s)
        self.classify = classifier("embedder", cfg.api_key_env)

    def request(self, texts: list[str], input_type: str) -> tuple[np.ndarray, int, dict[str, str]]:
        extra = {} if self.output_dimension is None else {"output_dimension": self.output_dimension}
        answer = self._client.embed(
            texts=texts,
            model=self.model,
            input_type=INPUT_TYPES[input_type],
            embedding_types=["float"],
            request_options=NO_RETRIES,
            **extra,
        )
        vectors = getattr(answer.embeddings, "float_", None)
        if vectors is None:
            raise MalformedAnswer("the answer holds no float embeddings")
        billed = answer.meta.billed_units if answer.meta is not None else None
        tokens = int(getattr(billed, "input_tokens", 0) or 0) if billed is not None else 0
        return np.asarray(vectors, dtype=np.float32), tokens, {}


def build(cfg: CohereEmbedderConfig) -> RemoteEmbedder:
    """The embedder a ``CohereEmbedderConfig`` describes; ConfigError before any request when a setting is wrong."""
    if not cfg.model:
        raise ConfigError("embedder.model must name a Cohere model for embedder=cohere, e.g. embed-v4.0")
    native, input_tokens = MODELS.get(cfg.model, (None, 512))
    if cfg.dimension is None and native is None:
        raise ConfigError(
            f"embedder.dimension must be set for embedder.model={cfg.model} (its size is not known to rag-bench),"
            " e.g. embedder.dimension=1024"
        )
    sizes = MATRYOSHKA.get(cfg.model)
    if sizes is not None and cfg.dimension is not None and cfg.dimension not in sizes:
        raise ConfigError(
            f"embedder.dimension ({cfg.dimension}) is not a size {cfg.model} takes: one of {', '.join(map(str, sizes))}"
        )
    if native is not None and sizes is None and cfg.dimension not in (None, native):
        raise ConfigError(
            f"embedder.dimension ({cfg.dimension}) is not a size {cfg.model} takes: it has {native} only (null)"
        )
    key = cohere_key(cfg.api_key_env, "embedder=cohere")
    if sizes is not None and cfg.dimension is not None and cfg.dimension < max(sizes):
        # embed at the largest size once; the pipeline truncates to cfg.dimension (rag_bench/embed/dimension.py)
        embedder = _embedder(dataclasses.replace(cfg, dimension=max(sizes)), key, input_tokens)
        embedder.matryoshka = True
        return embedder
    return _embedder(cfg, key, input_tokens)


def _embedder(cfg, key: str, input_tokens: int) -> RemoteEmbedder:
    dimension = cfg.dimension or MODELS[cfg.model][0]
    limits = Limits(
        dimension=dimension,
        max_tokens=input_tokens,
        request_tokens=cfg.max_tokens_per_batch or MAX_TEXTS * input_tokens,
        batch_size=cfg.batch_size,
    )
    transport = CohereTransport(cfg, key, cfg.dimension)
    name = f"cohere/{cfg.model}@{dimension}"
    return RemoteEmbedder(name, f"Cohere embeddings ({cfg.model})", transport, limits, cfg, key)
