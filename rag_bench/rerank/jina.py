"""The ``/v1/rerank`` schema that Jina AI's API, vLLM, Infinity and other servers share (``reranker=jina``).

``POST {base_url}/v1/rerank`` with ``{"model", "query", "documents": [...], "top_n"}``; the answer holds
``results: [{"index", "relevance_score"}]`` and, where the server counts them, ``usage.total_tokens``.
Jina's API by default (key in ``JINA_API_KEY``); a local server with ``reranker.base_url=http://host:port``
and ``reranker.api_key_env=null``. The score cache, batching, concurrency, retries and usage are every API
reranker's (``remote.py``); HTTP is ``remote/http.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from rag_bench.core.errors import ConfigError
from rag_bench.core.workspace import Workspace
from rag_bench.remote.http import JsonApi, MalformedAnswer, bearer_key, classify_http
from rag_bench.rerank.remote import Batching, RemoteReranker, RemoteRerankerConfig

MAX_DOCUMENTS = 1000
REQUEST_TOKENS = 10**9


@dataclass
class JinaRerankerConfig(RemoteRerankerConfig):
    """A ``/v1/rerank`` server: Jina AI's API, vLLM, Infinity, ... (``reranker=jina``)."""

    name: str = "jina"
    model: str = "jina-reranker-v2-base-multilingual"
    base_url: str | None = "https://api.jina.ai"
    api_key_env: str | None = "JINA_API_KEY"  # the environment variable holding the key; null = send none
    batch_size: int = 100  # documents per request

    def __post_init__(self) -> None:
        RemoteRerankerConfig.__post_init__(self)
        if not 1 <= self.batch_size <= MAX_DOCUMENTS:
            raise ConfigError(f"reranker.batch_size ({self.batch_size}) must lie between 1 and {MAX_DOCUMENTS}")


def rerank_route(base_url: str) -> str:
    """``http://host:port`` and ``http://host:port/v1`` both reach ``.../v1/rerank``."""
    return "/rerank" if base_url.rstrip("/").endswith("/v1") else "/v1/rerank"


class JinaRerankTransport:
    """One POST of the ``/v1/rerank`` schema."""

    hooked = True  # its HTTP client calls slots.sending and slots.answered (rag_bench/remote/slots.py)

    def __init__(self, cfg, api_key: str | None) -> None:
        self.model = cfg.model
        self.api = JsonApi(cfg.base_url, "reranker.base_url", api_key, cfg.timeout_s)
        self.route = rerank_route(cfg.base_url)
        self.classify = partial(classify_http, group="reranker", key_variable=cfg.api_key_env)

    def request(self, question: str, documents: list[str]):
        body = {"model": self.model, "query": question, "documents": documents, "top_n": len(documents)}
        answer, headers = self.api.post(self.route, body)
        try:
            pairs = [(int(r["index"]), float(r["relevance_score"])) for r in answer["results"]]
            tokens = int((answer.get("usage") or {}).get("total_tokens") or 0)
        except (KeyError, TypeError, ValueError, AttributeError):
            raise MalformedAnswer(f"no results[].index and relevance_score in {str(answer)[:200]!r}") from None
        return pairs, tokens, 0, headers


def build(cfg, ws: Workspace) -> RemoteReranker:
    """The reranker a ``JinaRerankerConfig`` describes; ConfigError before any request."""
    if not cfg.model or not cfg.base_url:
        raise ConfigError("reranker.model and reranker.base_url must be set for reranker=jina")
    key = bearer_key(cfg.api_key_env, "reranker.api_key_env")
    transport = JinaRerankTransport(cfg, key)
    host = cfg.base_url.split("://", 1)[-1].rstrip("/").replace(":", "_")
    label = f"rerank ({cfg.model} at {cfg.base_url})"
    batching = Batching(cfg.batch_size, REQUEST_TOKENS)
    return RemoteReranker(f"jina/{host}/{cfg.model}", label, transport, batching, cfg, ws.cache, key)
