"""A fake Text Embeddings Inference server on 127.0.0.1, for tests: ``GET /info``, ``POST /embed``, ``POST /rerank``.

It serves one model (``model_id``): vectors are ``FakeEmbedder`` word hashes of ``dimension`` values,
rerank scores ``FakeReranker`` word overlaps; a request with more than ``max_client_batch_size`` inputs
gets TEI's 413. Faults, key, delay and the announced rate limit: ``fake_api.py``.
"""

from __future__ import annotations

from rag_bench.embed.fake import FakeEmbedder
from rag_bench.rerank.fake import FakeReranker
from rag_bench.testing.fake_api import FakeApi


class FakeTeiServer(FakeApi):
    """TEI's own routes for one model; ``url`` is ``http://127.0.0.1:PORT``."""

    PURE = ("/info", "/embed", "/rerank")  # answers that depend on the request alone

    def __init__(
        self,
        model_id: str = "BAAI/bge-small-en-v1.5",
        dimension: int = 384,
        max_client_batch_size: int = 32,
        **options,
    ) -> None:
        super().__init__(**options)
        self.model_id, self.dimension, self.max_batch = model_id, dimension, max_client_batch_size

    def refusal(self, status: int, message: str) -> dict:
        return {"error": message, "error_type": "Unhealthy" if status >= 500 else "Validation"}

    def routes(self, path: str, body: dict | None, headers: dict[str, str]) -> tuple[int, object]:
        if path == "/info":
            return 200, {"model_id": self.model_id, "max_input_length": 512, "max_client_batch_size": self.max_batch}
        body = body or {}
        texts = body.get("inputs") if path == "/embed" else body.get("texts")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        if path not in ("/embed", "/rerank"):
            return 404, self.refusal(404, f"no route {path}")
        if not 1 <= len(texts) <= self.max_batch:
            return 413, self.refusal(413, f"batch size {len(texts)} > maximum allowed batch size {self.max_batch}")
        if path == "/embed":
            return 200, [[float(x) for x in v] for v in FakeEmbedder(self.dimension).embed(texts)]
        scores = FakeReranker().score(body.get("query", ""), texts)
        order = sorted(range(len(texts)), key=lambda i: (-scores[i], i))
        return 200, [{"index": i, "score": float(scores[i])} for i in order]
