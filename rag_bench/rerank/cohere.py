"""Cohere rerankers through the official ``cohere`` client, API v2 (``reranker=cohere``).

docs.cohere.com/reference/rerank: at most 1,000 documents a request (we send at most ``MAX_DOCUMENTS``);
billed by search units (a query with up to 100 documents; a document longer than the model's context is
split and counted more), read from each answer's ``meta.billed_units.search_units`` and priced per search
in ``configs/prices.yaml``. The score cache, batching, concurrency, retries and usage are every API
reranker's (``remote.py``); the key from ``CO_API_KEY`` (``remote/cohere.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from rag_bench.core.errors import ConfigError
from rag_bench.core.workspace import Workspace
from rag_bench.remote.cohere import KEY_VARIABLE, NO_RETRIES, classifier, cohere_client, cohere_key
from rag_bench.rerank.remote import Batching, RemoteReranker, RemoteRerankerConfig

MAX_DOCUMENTS = 1000
REQUEST_TOKENS = 10**9  # no documented budget per request beyond the documents' count


@dataclass
class CohereRerankerConfig(RemoteRerankerConfig):
    """Cohere reranker (needs CO_API_KEY); scores cached per (model, question, passage)."""

    name: str = "cohere"
    model: str = "rerank-v3.5"  # rerank-english-v3.0, rerank-multilingual-v3.0, ...
    api_key_env: str = KEY_VARIABLE  # the environment variable holding the key


class CohereRerankTransport:
    """One request to Cohere's v2 rerank route."""

    hooked = True  # its HTTP client calls slots.sending and slots.answered (rag_bench/remote/slots.py)

    def __init__(self, cfg, api_key: str) -> None:
        self.model = cfg.model
        self._client = cohere_client(api_key, cfg.base_url, cfg.timeout_s)
        self.classify = classifier("reranker", cfg.api_key_env)

    def request(self, question: str, documents: list[str]):
        answer = self._client.rerank(
            model=self.model, query=question, documents=documents, top_n=len(documents), request_options=NO_RETRIES
        )
        pairs = [(r.index, float(r.relevance_score)) for r in answer.results]
        billed = answer.meta.billed_units if answer.meta is not None else None
        searches = int(getattr(billed, "search_units", 0) or 0) if billed is not None else 0
        return pairs, 0, searches, {}


def build(cfg, ws: Workspace) -> RemoteReranker:
    """The reranker a ``CohereRerankerConfig`` describes; ConfigError before any request."""
    if not cfg.model:
        raise ConfigError("reranker.model must name a Cohere reranker for reranker=cohere, e.g. rerank-v3.5")
    key = cohere_key(cfg.api_key_env, "reranker=cohere")
    transport = CohereRerankTransport(cfg, key)
    batching = Batching(MAX_DOCUMENTS, REQUEST_TOKENS)
    return RemoteReranker(
        f"cohere/{cfg.model}", f"Cohere rerank ({cfg.model})", transport, batching, cfg, ws.cache, key
    )
