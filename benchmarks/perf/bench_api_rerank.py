"""Speed goal: API reranking keeps the pipe full, for every provider (Cohere, TEI, the /v1/rerank schema, Voyage).

Each provider's real client (cohere, voyageai; urllib for TEI and the /v1/rerank schema) scores distinct
questions' candidates through the score cache (``RemoteReranker.prefetch``, the pipeline's own path: one
cache entry written per request as it answers) against its fake server in a child process, which answers
every request after ``latency`` seconds and spends next to nothing on its own (every score is one
constant). The rerankers run with their defaults: concurrency 4, ``reranker.depth`` 20 candidates per
question, each question's candidates in one request (every provider takes at least 20 documents a
request). The reference, computed for the same run:

    bound = min(concurrency x documents / latency, announced requests per second x documents)   documents per second

and the goal is measured throughput >= 90% of it: at 300 ms and 100 ms with no rate limit, and at 300 ms
with a limit of half the concurrency bound announced (``x-ratelimit-limit-requests``) and enforced by a
token bucket holding 2 requests. A second pass over the same questions from a fresh reranker on the same
cache must send nothing.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from bench_api_embed import KEY, Served, measure, pipe_bound, served
from common import report

from rag_bench.core.cache import DiskCache
from rag_bench.core.workspace import Workspace
from rag_bench.rerank.registry import RERANKERS

WAVES = 16  # requests per slot in the unlimited runs
LIMITED_REQUESTS = 80
# provider -> (fake server class, its keyword arguments, reranker settings but base_url, the client's base_url suffix)
PROVIDERS = {
    "cohere": ("rag_bench.testing.cohere_server:FakeCohereServer", {}, {"model": "rerank-v3.5"}, ""),
    "tei": ("rag_bench.testing.tei_server:FakeTeiServer", {}, {"api_key_env": "TEI_API_KEY"}, ""),
    "jina": (
        "rag_bench.testing.openai_server:FakeOpenAIServer",
        {},
        {"model": "bge-reranker-v2-m3", "api_key_env": "JINA_API_KEY"},
        "",
    ),
    "voyage": ("rag_bench.testing.voyage_server:FakeVoyageServer", {}, {"model": "rerank-2.5"}, ""),
}


def questions(n: int, tag: str, depth: int) -> tuple[list[str], list[list[str]]]:
    """``n`` distinct questions, each with ``depth`` distinct candidate passages."""
    asked = [f"{tag} question {i}: what was the audit fee of unit {i % 97}?" for i in range(n)]
    found = [[f"{tag} passage {i}.{j} on the audit fee of unit {j % 97}" for j in range(depth)] for i in range(n)]
    return asked, found


def run(provider: str, latency: float, limit_rpm: float | None, cache: Path) -> tuple[float, float, int, int]:
    """(documents per second measured, the bound, documents sent again by a second pass, documents per request)."""
    target, options, settings, suffix = PROVIDERS[provider]
    with Served(target, served(options, latency, limit_rpm)) as url:
        cfg = RERANKERS.settings(provider, base_url=url + suffix, **settings)
        reranker = RERANKERS.build(cfg, Workspace(DiskCache(cache)))
        depth, concurrency = cfg.depth, reranker.concurrency
        per_request = min(depth, reranker.batching.documents)
        bound = pipe_bound(concurrency, per_request, latency, limit_rpm)
        n = LIMITED_REQUESTS if limit_rpm is not None else WAVES * concurrency
        asked, found = questions(n, f"{provider}-{latency}-{limit_rpm}", depth)
        start = time.perf_counter()
        reranker.prefetch(asked, found)
        seconds = time.perf_counter() - start
        assert reranker.usage.texts == n * depth, reranker.usage.texts
        again = RERANKERS.build(cfg, Workspace(DiskCache(cache)))
        again.prefetch(asked, found)
    return n * depth / seconds, bound, again.usage.texts, per_request


def main() -> None:
    os.environ.update({"VOYAGE_API_KEY": KEY, "CO_API_KEY": KEY, "TEI_API_KEY": KEY, "JINA_API_KEY": KEY})
    logging.getLogger("rag_bench.remote.retry").setLevel(logging.ERROR)  # the 429s of the limited runs are expected
    line = "{provider:7s} {where:28s} {per:4d} docs/request: {rate:7.0f} docs/s of {bound:7.0f}"
    checks, details = measure("API rerank", PROVIDERS, run, line, "documents")
    report("API rerank throughput against fake servers", checks, details)


if __name__ == "__main__":
    main()
