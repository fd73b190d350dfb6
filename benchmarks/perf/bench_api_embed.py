"""Speed goal: API embedding keeps the pipe full, for every provider (Voyage, OpenAI-compatible, Cohere, TEI).

Each provider's real client embeds distinct texts through the vector cache (``embed_cached``, the pipeline's
own path: claims, batches committed as they come back) against its fake server, which runs in a child
process (so the client does not share a GIL with it), answers every request after ``latency`` seconds and
spends next to nothing on its own (every vector is one constant row of 64 to 256 values), so what is
measured is rag-bench's side: the official client, the pool of workers, the cache commits.
The embedders run with their defaults (concurrency 4; batches of 128 texts for Voyage and OpenAI, 96 for
Cohere, the server's 32 for TEI). The reference, computed for the same run:

    bound = min(concurrency x batch / latency, announced requests per second x batch)   texts per second

and the goal is measured throughput >= 90% of it: at 300 ms and 100 ms with no rate limit, and at 300 ms
with a limit of half the concurrency bound announced (``x-ratelimit-limit-requests``) and enforced by a
token bucket holding 2 requests. A second pass over the same texts from a fresh workspace on the same
cache must send no text again ("a sweep over N models embeds each distinct text once per model").
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import Check, report

from rag_bench.core.cache import DiskCache
from rag_bench.core.progress import quiet_while
from rag_bench.core.workspace import Workspace
from rag_bench.embed.cached import embed_cached
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.embed.store import vector_store

WAVES = 16  # requests per worker in the unlimited runs
LIMITED_REQUESTS = 80
KEY = "bench-key"
# provider -> (fake server class, its keyword arguments, embedder settings but base_url, the client's base_url suffix)
PROVIDERS = {
    "voyage": ("rag_bench.testing.voyage_server:FakeVoyageServer", {}, {"model": "voyage-2", "dimension": 256}, ""),
    "openai": (
        "rag_bench.testing.openai_server:FakeOpenAIServer",
        {"models": {"bench-64": [64, False]}},
        {"model": "bench-64"},
        "/v1",
    ),
    "cohere": (
        "rag_bench.testing.cohere_server:FakeCohereServer",
        {"models": {"bench-64": [64, [64]]}},
        {"model": "bench-64", "dimension": 64},
        "",
    ),
    "tei": (
        "rag_bench.testing.tei_server:FakeTeiServer",
        {"dimension": 64, "max_client_batch_size": 32},
        {"api_key_env": "TEI_API_KEY"},
        "",
    ),
}
# the fake server in its child process, its vectors one constant row and its rerank scores one constant (its own
# work must not be what is measured; bench_api_rerank.py serves its fakes with this too)
SERVE = """
import json, sys, importlib
import numpy as np
from rag_bench.embed.fake import FakeEmbedder
from rag_bench.rerank.fake import FakeReranker
def constant(self, texts, input_type="document"):
    return np.full((len(texts), self.dimension), self.dimension ** -0.5, np.float32)
FakeEmbedder.embed = constant
FakeReranker.score = lambda self, question, passages: np.full(len(passages), 0.5)
module, name = sys.argv[1].split(":")
server = getattr(importlib.import_module(module), name)(**json.loads(sys.argv[2]))
server.__enter__()
print(server.url, flush=True)
sys.stdin.read()
server.stop()
"""


class Served:
    """A fake server in a child process: started on enter, stopped (stdin closed, then waited) on exit."""

    def __init__(self, target: str, options: dict) -> None:
        self.command = [sys.executable, "-c", SERVE, target, json.dumps(options)]

    def __enter__(self) -> str:
        self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        return self.process.stdout.readline().strip()

    def __exit__(self, *exc) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def texts(n: int, tag: str) -> list[str]:
    return [f"{tag} passage {i} about the audit fee and the quarterly revenue of unit {i % 97}" for i in range(n)]


def run(provider: str, latency: float, limit_rpm: float | None, cache: Path) -> tuple[float, float, int, int]:
    """(texts per second measured, the bound, texts sent again by a second pass, batch size) of one setting."""
    target, options, settings, suffix = PROVIDERS[provider]
    with Served(target, served(options, latency, limit_rpm)) as url:
        embedder = EMBEDDERS.build(EMBEDDERS.settings(provider, base_url=url + suffix, **settings))
        batch, concurrency = embedder.batch_size, embedder.concurrency
        bound = pipe_bound(concurrency, batch, latency, limit_rpm)
        n = LIMITED_REQUESTS * batch if limit_rpm is not None else WAVES * concurrency * batch
        items = texts(n, f"{provider}-{latency}-{limit_rpm}")
        store = vector_store(Workspace(DiskCache(cache)), embedder, "document")
        start = time.perf_counter()
        _, stats = embed_cached(embedder, store, items, "document")
        seconds = time.perf_counter() - start
        assert stats.embedded == n, stats
        again_store = vector_store(Workspace(DiskCache(cache)), embedder, "document")
        _, again = embed_cached(embedder, again_store, items, "document")
    return n / seconds, bound, again.embedded, batch


def served(options: dict, latency: float, limit_rpm: float | None) -> dict:
    """A fake server's keyword arguments: answering after ``latency`` s, with a token bucket of 2 at ``limit_rpm``."""
    limit = {} if limit_rpm is None else {"rate_limit": limit_rpm, "burst": 2}
    return {"api_key": KEY, "delay_s": latency, **options, **limit}


def pipe_bound(concurrency: int, per_request: int, latency: float, limit_rpm: float | None) -> float:
    """min(concurrency x items per request / latency, announced requests per second x items per request)."""
    bound = concurrency * per_request / latency
    return bound if limit_rpm is None else min(bound, limit_rpm / 60 * per_request)


def measure(name: str, providers, run, line: str, sent_again: str) -> tuple[list[Check], list[str]]:
    """Each provider through ``run`` at 300 ms, 100 ms and 300 ms with half the concurrency bound announced as
    a rate limit: a check of throughput / bound >= 0.9 each, and one that a second pass sent nothing."""
    checks, details = [], []
    with tempfile.TemporaryDirectory() as tmp, quiet_while(True):
        for provider in providers:
            resent = 0
            for latency, limit in ((0.3, None), (0.1, None), (0.3, 0.5)):
                limit_rpm = None if limit is None else limit * 4 / latency * 60  # half the bound, per minute
                rate, bound, again, per = run(provider, latency, limit_rpm, Path(tmp) / provider)
                resent += again
                where = f"{int(latency * 1000)} ms" + ("" if limit_rpm is None else f", {limit_rpm:g} requests/min")
                details.append(line.format(provider=provider, where=where, per=per, rate=rate, bound=bound))
                checks.append(Check(name, f"{provider} {where}: throughput / bound", rate / bound, ">=", 0.9))
            checks.append(Check(name, f"{provider}: {sent_again} sent again by a second pass", resent, "<=", 0))
    return checks, details


def main() -> None:
    os.environ.update({"VOYAGE_API_KEY": KEY, "OPENAI_API_KEY": KEY, "CO_API_KEY": KEY, "TEI_API_KEY": KEY})
    logging.getLogger("rag_bench.remote.retry").setLevel(logging.ERROR)  # the 429s of the limited runs are expected
    line = "{provider:7s} {where:28s} batch {per:4d}: {rate:8.0f} texts/s of {bound:8.0f}"
    checks, details = measure("API embed", PROVIDERS, run, line, "texts")
    report("API embedding throughput against fake servers", checks, details)


if __name__ == "__main__":
    main()
