"""Embeddings from a Text Embeddings Inference server's own route (``embedder=tei``): ``POST /embed``.

At build time ``GET /info`` says which model the server serves (its ``model_id`` names the vectors in
the cache), the most inputs a request may hold (``max_client_batch_size``), and the tokens one input may
hold (``max_input_length``, for the count of truncated chunks); one short ``/embed`` gives the vector
size. Requests send ``{"inputs": [...], "truncate": true}`` (TEI cuts long inputs at its limit, as the
other providers do) and get one vector per input. A smaller ``embedder.dimension`` is reached by the
pipeline's PCA (``dimension.py``). TEI bills nothing, so no tokens are counted. Batching, concurrency,
retries and usage are every API embedder's (``remote.py``); HTTP is ``remote/http.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import ClassVar

import numpy as np

from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.embed.remote import Limits, RemoteEmbedder, RemoteEmbedderConfig
from rag_bench.remote.http import JsonApi, MalformedAnswer, bearer_key, classify_http
from rag_bench.remote.retry import CallFailed, RetryPolicy, call_with_retries


@dataclass
class TeiEmbedderConfig(RemoteEmbedderConfig):
    """A Text Embeddings Inference server's ``/embed`` (``embedder=tei embedder.base_url=http://host:port``)."""

    name: str = "tei"
    model: str | None = None  # null = whatever the server serves (its /info model_id); set: checked against it
    base_url: str | None = "http://127.0.0.1:8080"
    batch_size: int = 32  # inputs per request; lowered to the server's max_client_batch_size
    api_key_env: str | None = None  # the variable holding the server's --api-key; null = none

    BATCH_LIMIT: ClassVar[int] = 100_000
    PROVIDER: ClassVar[str] = "TEI"


class TeiTransport:
    """One request to TEI's ``/embed``."""

    hooked = True  # its HTTP client calls slots.sending and slots.answered (rag_bench/remote/slots.py)

    def __init__(self, api: JsonApi, classify) -> None:
        self.api, self.classify = api, classify

    def request(self, texts: list[str], input_type: str) -> tuple[np.ndarray, int, dict[str, str]]:
        answer, headers = self.api.post("/embed", {"inputs": texts, "truncate": True})
        if not isinstance(answer, list) or not all(isinstance(row, list) for row in answer):
            raise MalformedAnswer(f"/embed answered {type(answer).__name__}, not a list of vectors")
        return np.asarray(answer, dtype=np.float32), 0, headers


def server_info(api: JsonApi, transport: TeiTransport, cfg) -> tuple[dict, int]:
    """The server's ``/info`` and the size of its vectors (one short ``/embed``), with retries."""
    policy = RetryPolicy.from_config(cfg)
    try:
        info, _ = call_with_retries(lambda: api.post("/info", None), policy, transport.classify)
        vectors, _, _ = call_with_retries(
            lambda: transport.request(["dimension"], "document"), policy, transport.classify
        )
    except CallFailed as exc:
        problem = ConfigError if exc.setting else ServiceError
        raise problem(f"TEI at embedder.base_url={cfg.base_url} did not answer: {exc}") from None
    return (info if isinstance(info, dict) else {}), int(vectors.shape[1])


def build(cfg: TeiEmbedderConfig) -> RemoteEmbedder:
    """The embedder a ``TeiEmbedderConfig`` describes; it asks the server what it serves."""
    if not cfg.base_url:
        raise ConfigError("embedder.base_url must name the TEI server for embedder=tei, e.g. http://127.0.0.1:8080")
    key = bearer_key(cfg.api_key_env, "embedder.api_key_env")
    api = JsonApi(cfg.base_url, "embedder.base_url", key, cfg.timeout_s)
    transport = TeiTransport(api, partial(classify_http, group="embedder", key_variable=cfg.api_key_env))
    info, dimension = server_info(api, transport, cfg)
    served = str(info.get("model_id") or "unknown-model")
    if cfg.model and cfg.model != served:
        raise ConfigError(
            f"the TEI server at {cfg.base_url} serves {served}, not embedder.model={cfg.model}; set "
            f"embedder.model={served} or null"
        )
    if cfg.dimension is not None and cfg.dimension > dimension:
        raise ConfigError(
            f"embedder.dimension ({cfg.dimension}) exceeds {served}'s {dimension}; set it to at most that"
        )
    limits = Limits(
        dimension=dimension,
        max_tokens=int(info.get("max_input_length") or 512),
        request_tokens=cfg.max_tokens_per_batch or 10**9,
        batch_size=min(cfg.batch_size, int(info.get("max_client_batch_size") or cfg.batch_size)),
    )
    name = f"tei/{served}@{dimension}"
    label = f"TEI embeddings ({served} at {cfg.base_url})"
    return RemoteEmbedder(name, label, transport, limits, replace(cfg, model=served), key)
