"""Cohere embeddings through the official ``cohere`` client, API v2 (``embedder=cohere``).

Documents are sent with ``input_type="search_document"`` and questions with ``"search_query"``
(docs.cohere.com/reference/embed: at most 96 texts a request; embed-v4.0 takes 128K tokens per input and
``output_dimension`` 256, 512, 1024 or 1536, Matryoshka-trained, so a smaller one is served from the
1536-d vector cut and renormalised; the v3 models take 512 tokens and have a fixed size). Billed tokens
come from each answer's ``meta.billed_units.input_tokens``. Batching, concurrency, retries and usage are
every API embedder's (``remote.py``); the key from ``CO_API_KEY`` (``remote/cohere.py``).

Vectors travel as base64 where the API gives it: the SDK builds its answer object value by value (about
8 ms per 96 vectors of 64 values on one core, 25-42 ms under load), against a fraction of a millisecond
for 96 base64 strings. The SDK documents ``base64`` as "the float embedding bytes appended together";
their layout (little-endian float32) is checked on the first answer, which asks for both ``float`` and
``base64``: the base64 is used from then on only if it decodes to exactly the float32 of the float
lists, and otherwise every request asks for floats, as before.
"""

from __future__ import annotations

import base64
import binascii
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

    hooked = True  # its HTTP client calls slots.sending and slots.answered (rag_bench/remote/slots.py)

    def __init__(self, cfg, api_key: str, dimension: int | None) -> None:
        self.model = cfg.model
        self.output_dimension = dimension
        self._client = cohere_client(api_key, cfg.base_url, cfg.timeout_s)
        self.classify = classifier("embedder", cfg.api_key_env)
        self.base64: bool | None = None  # None until the first answer says whether its base64 is the floats'

    def request(self, texts: list[str], input_type: str) -> tuple[np.ndarray, int, dict[str, str]]:
        extra = {} if self.output_dimension is None else {"output_dimension": self.output_dimension}
        kinds = {None: ["float", "base64"], True: ["base64"], False: ["float"]}[self.base64]
        answer = self._client.embed(
            texts=texts,
            model=self.model,
            input_type=INPUT_TYPES[input_type],
            embedding_types=kinds,
            request_options=NO_RETRIES,
            **extra,
        )
        floats = getattr(answer.embeddings, "float_", None)
        encoded = _base64_field(answer.embeddings)
        if self.base64 is None and floats is not None:
            self.base64 = encoded is not None and _same(floats, encoded)
        vectors = from_base64(encoded) if kinds == ["base64"] else floats
        if vectors is None:
            raise MalformedAnswer(f"the answer holds no {kinds[0]} embeddings")
        billed = answer.meta.billed_units if answer.meta is not None else None
        tokens = int(getattr(billed, "input_tokens", 0) or 0) if billed is not None else 0
        return np.asarray(vectors, dtype=np.float32), tokens, {}


def from_base64(encoded: list[str] | None) -> np.ndarray | None:
    """(n, d) float32 rows from Cohere's base64 embeddings (little-endian float32 bytes); None for None."""
    if encoded is None:
        return None
    try:
        return np.stack([np.frombuffer(base64.b64decode(row, validate=True), dtype="<f4") for row in encoded])
    except (TypeError, ValueError, binascii.Error) as exc:
        raise MalformedAnswer(f"the answer's base64 embeddings are not float32 rows ({type(exc).__name__})") from None


def _base64_field(embeddings) -> list[str] | None:
    """The answer's ``base64`` rows: a field of the SDK's model (cohere 7), else kept among its extra fields (older
    SDKs; their attribute hook would warn of a pydantic deprecation for an unknown name), else None."""
    if "base64" in getattr(type(embeddings), "model_fields", {}):
        return embeddings.base64
    return (getattr(embeddings, "__pydantic_extra__", None) or {}).get("base64")


def _same(floats: list[list[float]], encoded: list[str]) -> bool:
    """Whether the base64 rows hold exactly the float32 values of the float lists."""
    try:
        decoded = from_base64(encoded)
    except MalformedAnswer:
        return False
    expected = np.asarray(floats, dtype=np.float32)
    return decoded.shape == expected.shape and decoded.tobytes() == expected.tobytes()


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
