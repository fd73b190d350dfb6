"""Speed goal 3: semantic and cluster chunking, cold, against embedding the chunks they produce.

For each chunker (default settings, local MiniLM embedder) on every 6th kestrel-kb document:
chunk through ``pipeline.chunk_dataset`` into a fresh cache (cold: the sentences, sentence
windows or pieces are embedded and cached on the way), then embed the resulting chunks' texts
through a fresh cache, as the dense stage does. Goal: chunking at most 2x the chunks' embedding,
in seconds; tokens (truncated at 256, [CLS]/[SEP] included) are printed too, since embedding
time follows them. Then a second sweep point with another ``chunker.size`` must embed no
text (each part is embedded once per model, as chunks are). The semantic chunker's other way
of making window vectors (``window_vectors=joined``, LangChain's) is measured too, as INFO.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import replace

from common import Check, report

from rag_bench.chunk.base import measure_units
from rag_bench.chunk.registry import CHUNKERS
from rag_bench.chunk.settings import ChunkerTools
from rag_bench.core.cache import DiskCache
from rag_bench.core.workspace import Workspace
from rag_bench.data.bundled import dataset_folder
from rag_bench.data.native import load_dataset
from rag_bench.embed.cached import embed_cached
from rag_bench.embed.local import MAX_TOKENS, MiniLMEmbedder
from rag_bench.embed.store import VectorStore
from rag_bench.pipeline.run import chunk_dataset

SECOND_SIZE = {"semantic": 600, "cluster": 1000}  # the second sweep point's chunker.size
GOAL = 2.0
# (chunker, settings, checked against the goal); the defaults are checked, other settings reported
RUNS = [("semantic", {}, True), ("semantic", {"window_vectors": "joined"}, False), ("cluster", {}, True)]


def parts_of(name: str, settings: dict, dataset, embedder) -> list[str]:
    """The texts the chunker embeds (sentences, sentence windows, pieces) for every document."""
    cfg = CHUNKERS.settings(name, **settings)
    chunker = CHUNKERS.build(cfg, ChunkerTools(embedder.token_spans, embedder.special_tokens))
    units = (measure_units(d, "chars", chunker.tools) for d in dataset.documents)
    return [p for d, u in zip(dataset.documents, units, strict=True) for p in chunker.splitter.parts(d.text, u)]


def measure(name: str, settings: dict, dataset, embedder) -> tuple[list[str], dict[str, float]]:
    """Detail lines and the three measures of one chunker setting (cold ratio, second point, per part)."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(DiskCache(os.path.join(tmp, "cache")))
        start = time.perf_counter()
        corpus, _ = chunk_dataset(ws, dataset, CHUNKERS.settings(name, **settings), embedder)
        chunking, chunk_embedded = time.perf_counter() - start, ws.tally.embedded
        fresh = VectorStore(DiskCache(os.path.join(tmp, "chunks")), embedder.name, 384, "document")
        start = time.perf_counter()
        embed_cached(embedder, fresh, corpus.passages, "document", "embedding chunks")
        embedding = time.perf_counter() - start
        before = ws.tally.embedded
        second_cfg = CHUNKERS.settings(name, **settings, size=SECOND_SIZE[name])
        second, _ = chunk_dataset(ws, dataset, second_cfg, embedder)
        again = ws.tally.embedded - before
    parts = parts_of(name, settings, dataset, embedder)
    part_tokens = int(embedder.count_tokens(parts).clip(max=MAX_TOKENS).sum())
    chunk_tokens = int(embedder.count_tokens(corpus.passages).clip(max=MAX_TOKENS).sum())
    details = [
        f"{label(name, settings)} (load average {load:.1f} -> {os.getloadavg()[0]:.1f}): {len(corpus.chunks)} chunks; "
        f"chunking {chunking:.1f} s ({chunk_embedded} texts embedded, {len(set(parts))} distinct parts, "
        f"{part_tokens} tokens); embedding the chunks {embedding:.1f} s ({chunk_tokens} tokens)",
        f"  ratio {chunking / embedding:.2f} in seconds, {part_tokens / chunk_tokens:.2f} in tokens; "
        f"second point (chunker.size={SECOND_SIZE[name]}, {len(second.chunks)} chunks) embedded {again} texts",
    ]
    return details, {"ratio": chunking / embedding, "again": float(again), "per_part": chunk_embedded / len(set(parts))}


def label(name: str, settings: dict) -> str:
    return " ".join([name, *(f"{k}={v}" for k, v in settings.items())])


def main() -> None:
    full = load_dataset(dataset_folder("kestrel-kb", None), "kestrel-kb")
    dataset = replace(full, documents=full.documents[::6])
    embedder = MiniLMEmbedder()
    embedder.embed(["warm up the session"])
    details, checks = [f"kestrel-kb, {len(dataset.documents)} of {len(full.documents)} documents (every 6th)"], []
    for name, settings, checked in RUNS:
        lines, value = measure(name, settings, dataset, embedder)
        details += lines
        who = label(name, settings)
        if not checked:
            checks.append(
                Check("S3 chunkers", f"{who}: cold chunking / embedding its chunks (s)", value["ratio"], "info", GOAL)
            )
            continue
        checks += [
            Check("S3 chunkers", f"{who}: cold chunking / embedding its chunks (s)", value["ratio"], "<=", GOAL),
            Check("S3 chunkers", f"{who}: texts embedded by a second sweep point", value["again"], "<=", 0.0),
            Check("S3 chunkers", f"{who}: texts embedded / distinct parts", value["per_part"], "<=", 1),
        ]
    report("Speed goal 3: embedding chunkers", checks, details)


if __name__ == "__main__":
    main()
