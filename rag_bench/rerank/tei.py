"""A Text Embeddings Inference server's own rerank route (``reranker=tei``): ``POST /rerank``.

At build time ``GET /info`` names the served model (its cache folder) and the most texts a request may
hold (``max_client_batch_size``). Requests send ``{"query", "texts": [...], "truncate": true}`` and get
``[{"index", "score"}]``. TEI bills nothing. The score cache, batching, concurrency, retries and usage
are every API reranker's (``remote.py``); HTTP is ``remote/http.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.core.workspace import Workspace
from rag_bench.remote.http import JsonApi, MalformedAnswer, bearer_key, classify_http
from rag_bench.remote.retry import CallFailed, RetryPolicy, call_with_retries
from rag_bench.rerank.remote import Batching, RemoteReranker, RemoteRerankerConfig


@dataclass
class TeiRerankerConfig(RemoteRerankerConfig):
    """A TEI server running a cross-encoder (``reranker=tei reranker.base_url=http://host:port``)."""

    name: str = "tei"
    model: str | None = None  # null = whatever the server serves; set: checked against its /info
    base_url: str | None = "http://127.0.0.1:8080"
    api_key_env: str | None = None  # the variable holding the server's --api-key; null = none
    batch_size: int = 32  # texts per request; lowered to the server's max_client_batch_size

    def __post_init__(self) -> None:
        RemoteRerankerConfig.__post_init__(self)
        if self.batch_size < 1:
            raise ConfigError(f"reranker.batch_size ({self.batch_size}) must be at least 1")


class TeiRerankTransport:
    """One request to TEI's ``/rerank``."""

    hooked = True  # its HTTP client calls slots.sending and slots.answered (rag_bench/remote/slots.py)

    def __init__(self, api: JsonApi, classify) -> None:
        self.api, self.classify = api, classify

    def request(self, question: str, documents: list[str]):
        answer, headers = self.api.post("/rerank", {"query": question, "texts": documents, "truncate": True})
        try:
            pairs = [(int(r["index"]), float(r["score"])) for r in answer]
        except (KeyError, TypeError, ValueError):
            raise MalformedAnswer(f"/rerank answered {str(answer)[:200]!r}") from None
        return pairs, 0, 0, headers


def build(cfg, ws: Workspace) -> RemoteReranker:
    """The reranker a ``TeiRerankerConfig`` describes; it asks the server what it serves."""
    if not cfg.base_url:
        raise ConfigError("reranker.base_url must name the TEI server for reranker=tei, e.g. http://127.0.0.1:8080")
    key = bearer_key(cfg.api_key_env, "reranker.api_key_env")
    api = JsonApi(cfg.base_url, "reranker.base_url", key, cfg.timeout_s)
    transport = TeiRerankTransport(api, partial(classify_http, group="reranker", key_variable=cfg.api_key_env))
    try:
        info, _ = call_with_retries(lambda: api.post("/info", None), RetryPolicy.from_config(cfg), transport.classify)
    except CallFailed as exc:
        problem = ConfigError if exc.setting else ServiceError
        raise problem(f"TEI at reranker.base_url={cfg.base_url} did not answer: {exc}") from None
    info = info if isinstance(info, dict) else {}
    served = str(info.get("model_id") or "unknown-model")
    if cfg.model and cfg.model != served:
        raise ConfigError(
            f"the TEI server at {cfg.base_url} serves {served}, not reranker.model={cfg.model}; set "
            f"reranker.model={served} or null"
        )
    batching = Batching(min(cfg.batch_size, int(info.get("max_client_batch_size") or cfg.batch_size)), 10**9)
    label = f"TEI rerank ({served} at {cfg.base_url})"
    return RemoteReranker(f"tei/{served}", label, transport, batching, replace(cfg, model=served), ws.cache, key)
