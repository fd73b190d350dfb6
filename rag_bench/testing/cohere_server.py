"""A fake Cohere API v2 on 127.0.0.1, for tests: ``/v2/embed`` and ``/v2/rerank`` as Cohere answers them.

Vectors are ``FakeEmbedder`` word hashes at the model's size (``output_dimension`` when sent and the model
takes it, as embed-v4.0 takes 256, 512, 1024 or 1536; otherwise a 400); billed units are input tokens (a word or a
punctuation mark) and search units (one per 100 documents). ``embedding_types`` may ask for ``float`` and
``base64`` (each row's little-endian float32 bytes, as the SDK documents "the float embedding bytes appended
together"). A model not in ``MODELS`` gets a 404. Faults,
key, delay and the announced rate limit: ``fake_api.py``.

    with FakeCohereServer(api_key="co-test") as server:
        ... base_url=server.url ...
"""

from __future__ import annotations

import base64
import math

import numpy as np

from rag_bench.embed.fake import FakeEmbedder
from rag_bench.rerank.fake import FakeReranker
from rag_bench.testing.fake_api import FakeApi
from rag_bench.testing.voyage_server import tokens

# model -> (native size, the output_dimension values it takes)
MODELS = {
    "embed-v4.0": (1536, (256, 512, 1024, 1536)),
    "embed-english-v3.0": (1024, ()),
    "embed-english-light-v3.0": (384, ()),
    "rerank-v3.5": (0, ()),
}


class FakeCohereServer(FakeApi):
    """Cohere's v2 embed and rerank routes; ``url`` is ``http://127.0.0.1:PORT`` (the client adds ``/v2``)."""

    PURE = ("/v2/embed", "/v2/rerank")  # answers that depend on the request alone

    def __init__(self, api_key: str | None = None, delay_s: float = 0.0, models: dict | None = None, **limits) -> None:
        super().__init__(api_key, delay_s, **limits)
        self.models = {name: (size, tuple(sizes)) for name, (size, sizes) in (models or MODELS).items()}

    def refusal(self, status: int, message: str) -> dict:
        return {"message": "invalid api token" if status == 401 else message}

    def routes(self, path: str, body: dict | None, headers: dict[str, str]) -> tuple[int, object]:
        body = body or {}
        if path not in ("/v2/embed", "/v2/rerank"):
            return 404, {"message": f"no route {path}"}
        model = body.get("model")
        if model not in self.models:
            return 404, {"message": f"model '{model}' not found, make sure the correct model ID was used"}
        if path == "/v2/rerank":
            return 200, rerank(body)
        size = body.get("output_dimension")
        if size is not None and size not in self.models[model][1]:
            return 400, {"message": f"invalid request: output_dimension {size} is not supported by {model}"}
        texts = list(body.get("texts") or [])
        if not 1 <= len(texts) <= 96:
            return 400, {"message": f"invalid request: texts must hold 1 to 96 items, not {len(texts)}"}
        kinds = list(body.get("embedding_types") or ["float"])
        if not set(kinds) <= {"float", "base64"}:
            return 400, {"message": f"invalid request: embedding_types {kinds} (this fake serves float and base64)"}
        vectors = FakeEmbedder(size or self.models[model][0]).embed(texts)
        return 200, {
            "id": "fake",
            "embeddings": {kind: ENCODE[kind](vectors) for kind in kinds},
            "texts": texts,
            "meta": {"api_version": {"version": "2"}, "billed_units": {"input_tokens": sum(tokens(t) for t in texts)}},
            "response_type": "embeddings_by_type",
        }


ENCODE = {  # embedding type -> the answer's rows
    "float": lambda vectors: [[float(x) for x in v] for v in vectors],
    "base64": lambda vectors: [base64.b64encode(np.asarray(v, "<f4").tobytes()).decode("ascii") for v in vectors],
}


def rerank(body: dict) -> dict:
    query, documents = body.get("query", ""), list(body.get("documents") or [])
    scores = FakeReranker().score(query, documents)
    order = sorted(range(len(documents)), key=lambda i: (-scores[i], i))[: body.get("top_n") or None]
    return {
        "id": "fake",
        "results": [{"index": i, "relevance_score": float(scores[i])} for i in order],
        "meta": {"api_version": {"version": "2"}, "billed_units": {"search_units": math.ceil(len(documents) / 100)}},
    }
