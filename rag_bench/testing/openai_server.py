"""A fake OpenAI-compatible server on 127.0.0.1, for tests: ``/v1/embeddings`` and ``/v1/chat/completions`` as
OpenAI answers them, and the ``/v1/rerank`` schema that Jina, vLLM and others share (as a vLLM server serves all).

Vectors are ``FakeEmbedder`` word hashes at the model's size (``MODELS``; ``dimensions`` when sent and the
model takes it), as float lists or base64 as the client asks; rerank scores are ``FakeReranker`` word
overlaps. A chat reply is ``chat(body)`` (a text, or a function of the request body), its usage counted as OpenAI
counts it, prompt caching included: a prompt of at least ``cache_min`` tokens reports as
``prompt_tokens_details.cached_tokens`` its longest prefix shared with an earlier prompt, from ``cache_min`` up
in steps of ``cache_step`` (OpenAI's 1,024 and 128). A token is a word or punctuation mark. A model not in
``models`` gets OpenAI's 404 ``model_not_found``; ``dimensions`` for a model that does not take them, OpenAI's
400. Faults, key, delay and the announced rate limit: ``fake_api.py``.

    with FakeOpenAIServer(api_key="sk-test", rate_limit=600) as server:
        ... base_url=server.url + "/v1" ...
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable

import numpy as np

from rag_bench.embed.fake import FakeEmbedder
from rag_bench.rerank.fake import FakeReranker
from rag_bench.testing.fake_api import FakeApi
from rag_bench.testing.voyage_server import tokens

# model -> (native size, takes "dimensions")
MODELS = {
    "text-embedding-3-small": (1536, True),
    "text-embedding-3-large": (3072, True),
    "text-embedding-ada-002": (1536, False),
    "nomic-embed-text": (768, False),
    "bge-reranker-v2-m3": (0, False),
    "jina-reranker-v2-base-multilingual": (0, False),
    "gpt-4o-mini": (0, False),  # chat models
    "llama3.1": (0, False),
}
_TOKEN = re.compile(r"\w+|[^\w\s]")


class FakeOpenAIServer(FakeApi):
    """OpenAI's embeddings route and the shared rerank route; ``url`` is ``http://127.0.0.1:PORT`` (add ``/v1``)."""

    PURE = ("/v1/embeddings", "/v1/rerank")  # answers that depend on the request alone

    def __init__(
        self,
        api_key: str | None = None,
        delay_s: float = 0.0,
        models: dict | None = None,
        chat: str | Callable[[dict], str] = "",
        cache_min: int = 1024,
        cache_step: int = 128,
        **limits,
    ) -> None:
        super().__init__(api_key, delay_s, **limits)
        self.models = dict(MODELS if models is None else models)
        self.key_header: str | None = None  # e.g. "api-key" (Azure): the key is checked there instead
        self.chat, self.cache_min, self.cache_step = chat, cache_min, cache_step
        self._prompts: list[list[str]] = []  # the tokens of every prompt answered, for the prefix cache

    def authorized(self, headers: dict[str, str]) -> bool:
        if self.api_key is not None and self.key_header:
            return headers.get(self.key_header.lower()) == self.api_key
        return super().authorized(headers)

    def refusal(self, status: int, message: str) -> dict:
        kinds = {401: "invalid_request_error", 404: "invalid_request_error", 429: "requests"}
        return {"error": {"message": message, "type": kinds.get(status, "server_error"), "code": None}}

    def routes(self, path: str, body: dict | None, headers: dict[str, str]) -> tuple[int, object]:
        body = body or {}
        if path not in ("/v1/embeddings", "/v1/rerank", "/v1/chat/completions"):
            return 404, self.refusal(404, f"Invalid URL (POST {path})")
        model = body.get("model")
        if model not in self.models:
            return 404, {"error": {"message": f"The model `{model}` does not exist", "code": "model_not_found"}}
        if path == "/v1/rerank":
            return 200, rerank(body)
        if path == "/v1/chat/completions":
            return 200, self.complete(body)
        size, flexible = self.models[model]
        if "dimensions" in body and not flexible:
            return 400, self.refusal(400, "This model does not support specifying dimensions.")
        return 200, embeddings(body, body.get("dimensions") or size)

    def complete(self, body: dict) -> dict:
        """A chat completion: the scripted reply, and usage with the prompt's cached prefix."""
        prompt = _TOKEN.findall(" ".join(str(m.get("content", "")) for m in body.get("messages") or []))
        with self._lock:
            shared = max((_common(prompt, seen) for seen in self._prompts), default=0)
            self._prompts.append(prompt)
        cached = (
            0
            if shared < self.cache_min
            else self.cache_min + (shared - self.cache_min) // self.cache_step * self.cache_step
        )
        text = self.chat(body) if callable(self.chat) else self.chat
        used = len(_TOKEN.findall(text))
        usage = {"prompt_tokens": len(prompt), "completion_tokens": used, "total_tokens": len(prompt) + used}
        return {
            "id": f"chatcmpl-fake{len(self._prompts)}",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {**usage, "prompt_tokens_details": {"cached_tokens": cached}},
        }


def _common(a: list[str], b: list[str]) -> int:
    """The length of the longest common prefix of two token lists."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def embeddings(body: dict, size: int) -> dict:
    texts = body.get("input")
    texts = [texts] if isinstance(texts, str) else list(texts or [])
    vectors = FakeEmbedder(size).embed(texts)
    if body.get("encoding_format") == "base64":
        items = [base64.b64encode(np.asarray(v, "<f4").tobytes()).decode("ascii") for v in vectors]
    else:
        items = [[float(x) for x in v] for v in vectors]
    used = sum(tokens(t) for t in texts)
    return {
        "object": "list",
        "data": [{"object": "embedding", "index": i, "embedding": e} for i, e in enumerate(items)],
        "model": body["model"],
        "usage": {"prompt_tokens": used, "total_tokens": used},
    }


def rerank(body: dict) -> dict:
    query, documents = body.get("query", ""), list(body.get("documents") or [])
    scores = FakeReranker().score(query, documents)
    order = sorted(range(len(documents)), key=lambda i: (-scores[i], i))[: body.get("top_n") or None]
    results = [{"index": i, "relevance_score": float(scores[i]), "document": {"text": documents[i]}} for i in order]
    used = tokens(query) * len(documents) + sum(tokens(d) for d in documents)
    return {"model": body["model"], "results": results, "usage": {"total_tokens": used}}
