"""A fake Voyage AI API on 127.0.0.1, for tests: ``/v1/embeddings`` and ``/v1/rerank``.

Vectors are ``FakeEmbedder`` word hashes (so texts that share words are close) at the requested
``output_dimension`` (1024 by default), sent as base64 float32 or as float lists as the client
asks; rerank scores are ``FakeReranker`` word overlaps. A "token" is a word or punctuation mark,
and ``usage.total_tokens`` follows Voyage's billing (rerank: query tokens x documents + document
tokens). Every request is recorded; faults are queued with ``inject`` and each is used by one
request: "429" (with Retry-After), "500", "503", "reset" (the connection is dropped with a TCP
RST), "slow" (the answer waits ``delay_s``) or "malformed"; ``delay_s`` on the server slows every
request, and ``rate_limit`` announces and enforces requests per minute (``fake_api.py``).

    with FakeVoyageServer(api_key="test-key") as server:
        server.inject("503", times=2)
        ... base_url=server.url ...
        assert len(server.received("/v1/embeddings")) == 3
"""

from __future__ import annotations

import base64
import re

import numpy as np

from rag_bench.embed.fake import FakeEmbedder
from rag_bench.rerank.fake import FakeReranker
from rag_bench.testing.fake_api import KINDS, FakeApi, Fault, Received

__all__ = ["KINDS", "FakeVoyageServer", "Fault", "Received", "tokens"]
_TOKEN = re.compile(r"\w+|[^\w\s]")


def tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


class FakeVoyageServer(FakeApi):
    """Voyage's ``/v1/embeddings`` and ``/v1/rerank`` (``url`` is ``http://127.0.0.1:PORT``; clients add ``/v1``)."""

    PURE = ("/v1/embeddings", "/v1/rerank")  # answers that depend on the request alone

    def __init__(self, api_key: str | None = None, delay_s: float = 0.0, max_texts: int = 1000, **limits) -> None:
        super().__init__(api_key, delay_s, **limits)
        self.max_texts = max_texts

    def refusal(self, status: int, message: str) -> dict:
        return {"detail": "Provided API key is invalid." if status == 401 else message}

    def routes(self, path: str, body: dict | None, headers: dict[str, str]) -> tuple[int, object]:
        body = body or {}
        if path not in ("/v1/embeddings", "/v1/rerank"):
            return 404, {"detail": f"no endpoint {path}"}
        if not body.get("model"):
            return 400, {"detail": "model is required"}
        texts = body.get("input") if path == "/v1/embeddings" else body.get("documents")
        texts = [texts] if isinstance(texts, str) else texts
        if not texts or len(texts) > self.max_texts:
            return 400, {"detail": f"the list must hold 1 to {self.max_texts} texts, not {len(texts or [])}"}
        return 200, (embeddings(body, texts) if path == "/v1/embeddings" else rerank(body, texts))


def embeddings(body: dict, texts: list[str]) -> dict:
    vectors = FakeEmbedder(body.get("output_dimension") or 1024).embed(texts)
    if body.get("encoding_format") == "base64":
        items = [base64.b64encode(np.asarray(v, "<f4").tobytes()).decode("ascii") for v in vectors]
    else:
        items = [[float(x) for x in v] for v in vectors]
    return {
        "object": "list",
        "data": [{"object": "embedding", "embedding": e, "index": i} for i, e in enumerate(items)],
        "model": body["model"],
        "usage": {"total_tokens": sum(tokens(t) for t in texts)},
    }


def rerank(body: dict, documents: list[str]) -> dict:
    query = body.get("query", "")
    scores = FakeReranker().score(query, documents)
    order = sorted(range(len(documents)), key=lambda i: (-scores[i], i))[: body.get("top_k") or None]
    data = [{"index": i, "relevance_score": float(scores[i])} for i in order]
    if body.get("return_documents"):
        for item in data:
            item["document"] = documents[item["index"]]
    used = tokens(query) * len(documents) + sum(tokens(d) for d in documents)
    return {"object": "list", "data": data, "model": body["model"], "usage": {"total_tokens": used}}
