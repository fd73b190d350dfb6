"""Embeddings from OpenAI or any server that speaks its ``/v1/embeddings`` route (``embedder=openai``): Azure
OpenAI, Ollama, vLLM, LM Studio, a LiteLLM proxy, Text Embeddings Inference's OpenAI route.

The official ``openai`` client sends each request (``base_url``, ``headers``, the key from ``api_key_env``:
``remote/openai.py``); batching, concurrency, pacing under the announced rate limit, retries and usage
are every API embedder's (``remote.py``). ``dimension`` is sent as ``dimensions`` (only when set: a
model or server that does not take it refuses it, and the error names the setting). OpenAI's limits
(platform.openai.com/docs/api-reference/embeddings): at most 2,048 inputs and 300,000 tokens per
request, 8,191 tokens per input. The text-embedding-3 models are Matryoshka-trained: OpenAI
documents that a shortened embedding equals the full one cut and renormalised, so a smaller
dimension is served from one embedding at the native size (``dimension.py``).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.embed.remote import Limits, RemoteEmbedder, RemoteEmbedderConfig
from rag_bench.remote.http import MalformedAnswer
from rag_bench.remote.openai import OpenAISettings, classifier, openai_client, openai_key
from rag_bench.remote.retry import CallFailed, RetryPolicy, call_with_retries

MAX_INPUTS = 2048
REQUEST_TOKENS = 300_000
INPUT_TOKENS = 8191
NATIVE_DIMENSIONS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}
MATRYOSHKA = ("text-embedding-3-small", "text-embedding-3-large")


@dataclass
class OpenAIEmbedderConfig(OpenAISettings, RemoteEmbedderConfig):
    """OpenAI-compatible embeddings (``embedder=openai``; the key from ``api_key_env``)."""

    name: str = "openai"
    model: str | None = "text-embedding-3-small"
    dimension: int | None = None  # sent as "dimensions"; null = the model's native size (asked of the server)
    batch_size: int = 128  # inputs per request (OpenAI takes at most 2048)
    max_input_tokens: int | None = None  # tokens per input; null = 8191 (OpenAI's), for the truncation count

    BATCH_LIMIT: ClassVar[int] = MAX_INPUTS
    PROVIDER: ClassVar[str] = "OpenAI"

    def __post_init__(self) -> None:
        RemoteEmbedderConfig.__post_init__(self)
        self.check_openai("embedder")
        if self.max_input_tokens is not None and self.max_input_tokens < 1:
            raise ConfigError(f"embedder.max_input_tokens ({self.max_input_tokens}) must be at least 1")


class OpenAITransport:
    """One request to ``/embeddings`` through the official client; the answer's headers come back too."""

    hooked = True  # its HTTP client calls slots.sending and slots.answered (rag_bench/remote/slots.py)

    def __init__(self, cfg, api_key: str | None, dimensions: int | None) -> None:
        self.model = cfg.model
        self.extra = {} if dimensions is None else {"dimensions": dimensions}  # sent only when set
        self._client = openai_client(cfg, api_key)
        self.base_url = str(self._client.base_url).rstrip("/")  # base_url, else $OPENAI_BASE_URL, else OpenAI's
        self.classify = classifier("embedder", cfg.api_key_env)

    def request(self, texts: list[str], input_type: str) -> tuple[np.ndarray, int, dict[str, str]]:
        # base64 (as the client asks by default), read from the raw answer: one array per row, no float lists
        # and no answer objects (the client's own parse costs 6-22 ms per 128 vectors under load)
        raw = self._client.embeddings.with_raw_response.create(
            input=texts, model=self.model, encoding_format="base64", **self.extra
        )
        vectors, tokens = decode_embeddings(raw.http_response.content, len(texts))
        return vectors, tokens, {k.lower(): v for k, v in raw.headers.items()}


def decode_embeddings(content: bytes, n: int) -> tuple[np.ndarray, int]:
    """(n, d) float32 rows in input order and the billed tokens, from an ``/embeddings`` answer's JSON: each
    ``embedding`` base64 of little-endian float32 (or a list of numbers, from a server that ignores
    ``encoding_format``). MalformedAnswer for anything else: an index missing or repeated, rows of unequal
    size."""
    try:
        answer = json.loads(content)
        rows = sorted(answer["data"], key=lambda row: row["index"])
        if [row["index"] for row in rows] != list(range(n)):
            raise MalformedAnswer(f"the answer's indices are not 0..{n - 1}")
        vectors = np.stack([_vector(row["embedding"]) for row in rows]) if rows else np.zeros((0, 0), np.float32)
        usage = answer.get("usage") or {}
        tokens = int(usage.get("total_tokens") or 0)
    except (KeyError, TypeError, ValueError, AttributeError, binascii.Error) as exc:
        raise MalformedAnswer(f"the answer holds no embeddings in input order ({type(exc).__name__})") from None
    return vectors, tokens


def _vector(embedding: str | list) -> np.ndarray:
    if isinstance(embedding, str):
        return np.frombuffer(base64.b64decode(embedding, validate=True), dtype="<f4")
    return np.asarray(embedding, dtype=np.float32)


def probe_dimension(transport: OpenAITransport, cfg, label: str) -> int:
    """The model's output size, asked of the server with one short text (a model rag-bench does not know)."""
    policy = RetryPolicy.from_config(cfg)
    try:
        vectors, _, _ = call_with_retries(
            lambda: transport.request(["dimension"], "document"), policy, transport.classify
        )
    except CallFailed as exc:
        problem = ConfigError if exc.setting else ServiceError
        raise problem(f"{label}: asking the server for the model's dimension failed: {exc}") from None
    return int(np.asarray(vectors).shape[1])


def build(cfg: OpenAIEmbedderConfig) -> RemoteEmbedder:
    """The embedder an ``OpenAIEmbedderConfig`` describes; ConfigError before any request when a setting is wrong."""
    if not cfg.model:
        raise ConfigError("embedder.model must name a model for embedder=openai, e.g. text-embedding-3-small")
    key = openai_key(cfg, "embedder=openai")
    native = NATIVE_DIMENSIONS.get(cfg.model)
    if cfg.model in MATRYOSHKA and cfg.dimension is not None and cfg.dimension < native:
        # embed at the native size once; the pipeline truncates to cfg.dimension (rag_bench/embed/dimension.py)
        embedder = _embedder(dataclasses.replace(cfg, dimension=None), key, native)
        embedder.matryoshka = True
        return embedder
    return _embedder(cfg, key, cfg.dimension or native)


def _embedder(cfg, key: str | None, dimension: int | None) -> RemoteEmbedder:
    label = f"OpenAI-compatible embeddings ({cfg.model})"
    transport = OpenAITransport(cfg, key, cfg.dimension)
    if dimension is None or cfg.dimension is not None and cfg.model not in MATRYOSHKA:
        # the model's size, or whether it takes the dimension asked: one short request before any work
        dimension = probe_dimension(transport, cfg, label)
    limits = Limits(
        dimension=dimension,
        max_tokens=cfg.max_input_tokens or INPUT_TOKENS,
        request_tokens=cfg.max_tokens_per_batch or REQUEST_TOKENS,
        batch_size=cfg.batch_size,
    )
    name = f"openai/{transport.base_url}/{cfg.model}@{dimension}"
    return RemoteEmbedder(_safe(name), label, transport, limits, cfg, key)


def _safe(name: str) -> str:
    """A cache-safe name: the server's address (scheme dropped) and model, slashes kept for the store to replace."""
    return name.replace("https://", "").replace("http://", "").replace(":", "_")
