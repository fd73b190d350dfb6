"""Voyage AI rerankers through the official ``voyageai`` client (``reranker=voyage``).

A request holds at most 1,000 documents and at most the model's token budget, "query tokens x
documents + document tokens" (docs.voyageai.com/reference/reranker-api: 600K for rerank-2.5,
rerank-2.5-lite, rerank-2 and rerank-2-lite; 300K assumed otherwise). The score cache, batching,
concurrency, retries and usage are every API reranker's (``remote.py``); the cache keeps its folder
``rerank/<model>/`` of the runs before that mechanism.
"""

from __future__ import annotations

from dataclasses import dataclass

from rag_bench.core.errors import ConfigError
from rag_bench.core.workspace import Workspace
from rag_bench.remote.voyage import classify_voyage, hook_session, voyage_api_key, voyage_client
from rag_bench.rerank.remote import Batching, RemoteReranker, RemoteRerankerConfig

MAX_DOCUMENTS = 1000
TOKEN_LIMITS = dict.fromkeys(["rerank-2.5", "rerank-2.5-lite", "rerank-2", "rerank-2-lite"], 600_000)
DEFAULT_TOKEN_LIMIT = 300_000


@dataclass
class VoyageRerankerConfig(RemoteRerankerConfig):
    """Voyage AI reranker (needs VOYAGE_API_KEY); scores cached per (model, question, passage)."""

    name: str = "voyage"
    model: str = "rerank-2.5"  # or rerank-2.5-lite; others by name


class VoyageRerankTransport:
    """One request to Voyage's rerank route through the official client."""

    hooked = True  # its session takes the slot as a request goes out, frees it as the answer comes (remote/voyage.py)

    def __init__(self, cfg, api_key: str) -> None:
        self.model = cfg.model
        self._client = voyage_client(api_key, cfg.base_url, cfg.timeout_s)

    def request(self, question: str, documents: list[str]):
        hook_session()  # the slot is taken as the request goes out (before the call, for a client without hooks)
        response = self._client.rerank(question, documents, model=self.model)
        pairs = [(r.index, float(r.relevance_score)) for r in response.results]
        return pairs, int(response.total_tokens), 0, {}

    def classify(self, exc: Exception):
        return classify_voyage(exc, "reranker")


def build(cfg, ws: Workspace) -> RemoteReranker:
    """The reranker a ``VoyageRerankerConfig`` describes, its scores kept in the workspace's cache; ConfigError
    before any request."""
    if not cfg.model:
        raise ConfigError("reranker.model must name a Voyage reranker for reranker=voyage, e.g. rerank-2.5")
    key = voyage_api_key("reranker=voyage")
    batching = Batching(MAX_DOCUMENTS, TOKEN_LIMITS.get(cfg.model, DEFAULT_TOKEN_LIMIT))
    reranker = RemoteReranker(
        f"voyage/{cfg.model}",
        f"Voyage rerank ({cfg.model})",
        VoyageRerankTransport(cfg, key),
        batching,
        cfg,
        ws.cache,
        key,
    )
    reranker.cache_model = cfg.model.replace("/", "--")  # the folder rag-bench has always used for Voyage
    return reranker
