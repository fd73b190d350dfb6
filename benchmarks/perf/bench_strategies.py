"""Goal S6: each retrieval strategy adds at most 10% to the retrieval stage's time (50k chunks x 1,000 questions).

The retrieval stage is what a run times as retrieval: hybrid BM25 (index built from the chunk texts) +
exact dense search (vectors served from the cache, each question searched on its own) + fusion, in a fresh
workspace each time (nothing kept in memory from an earlier repeat). Each step (expand, diversity) is
timed on that stage's lists, built and applied in a fresh workspace (its per-corpus work included:
sections, shingles, the vector matrix read); a score fusion is timed against RRF on the same two lists,
since it replaces RRF in the stage. Everything is timed in rounds (the stage, then each strategy), best
of 3 rounds. Ratio = (stage + what the strategy adds) / stage.
Each step runs once before the rounds (its first-call time is printed): S6 is the warm-cache cost, as
the stage's is (its vectors and matrix come from the cache), and MMR's list of the corpus's passage keys
is one more cache entry (hashing 50,000 passages once per corpus). Timing the stage and the step apart
keeps a busy machine's noise in the stage (seconds) out of the strategy's share (tenths of a second).
Corpus: 10,000 Markdown documents of five ## sections, one chunk each
(~120 Zipfian words), 2% of them copies of another chunk's text (boilerplate for collapse to find).
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np
from common import Check, interleaved, queries_from, report, single_thread, unit_vectors, zipf_corpus

from rag_bench.core.cache import DiskCache
from rag_bench.core.types import Chunk, Dataset, Document
from rag_bench.core.workspace import Workspace
from rag_bench.embed.cached import embed_cached
from rag_bench.embed.fake import FakeEmbedder
from rag_bench.embed.store import text_key, vector_store
from rag_bench.retrieve import bm25, dense
from rag_bench.retrieve.base import Corpus, Query
from rag_bench.retrieve.diversity.registry import DIVERSIFIERS
from rag_bench.retrieve.expand.registry import EXPANDERS
from rag_bench.retrieve.fusion.methods import Fusion
from rag_bench.retrieve.fusion.retriever import FusionRetriever
from rag_bench.retrieve.registry import RETRIEVERS, child_config
from rag_bench.retrieve.resources import Resources

N_DOCS, SECTIONS, N_QUERIES, DEPTH, DIM, GOAL, REPEATS = 10_000, 5, 1_000, 20, 384, 1.10, 3
STEPS = {
    "expand=parent (sections)": (EXPANDERS, "parent", {"level": "section"}),
    "expand=window (1)": (EXPANDERS, "window", {"size": 1}),
    "expand=merge (sections, 0.5)": (EXPANDERS, "merge", {"level": "section"}),
    "diversity=mmr (lambda 0.7)": (DIVERSIFIERS, "mmr", {"lambda_": 0.7}),
    "diversity=collapse (0.9)": (DIVERSIFIERS, "collapse", {"threshold": 0.9}),
}
FUSIONS = {"fusion=convex (minmax)": Fusion("convex"), "fusion=convex (zscore)": Fusion("convex", normalize="zscore")}
FUSIONS["fusion=dbsf"] = Fusion("dbsf")


def corpus() -> tuple[Dataset, Corpus]:
    """Documents of five ## sections, one chunk per section body; 2% of the bodies copy another's text."""
    words = zipf_corpus(N_DOCS * SECTIONS, seed=8)
    bodies = [" ".join(w) for w in words]
    rng = np.random.default_rng(3)
    copies = rng.choice(len(bodies), len(bodies) // 50, replace=False)
    for c in copies.tolist():
        bodies[c] = bodies[int(rng.integers(len(bodies)))]
    docs, chunks = [], []
    for d in range(N_DOCS):
        text, spans = "", []
        for s in range(SECTIONS):
            text += f"## Section {s}\n"
            spans.append((len(text), len(text) + len(bodies[d * SECTIONS + s])))
            text += bodies[d * SECTIONS + s] + "\n\n"
        docs.append(Document(f"d{d:05d}", text))
        chunks += [Chunk(f"d{d:05d}", a, b, text[a:b]) for a, b in spans]
    questions = [" ".join(q) for q in queries_from(words, N_QUERIES, seed=9)]
    return Dataset("bench", tuple(docs), ()), Corpus("bench-strategies", chunks), questions


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-strategies-") as folder:  # its cache (0.2 GB): removed after
        measure(folder)


def measure(folder: str) -> None:
    dataset, corp, questions = corpus()
    queries = [Query(f"q{i}", q) for i, q in enumerate(questions)]
    cache = DiskCache(folder)
    embedder = FakeEmbedder(DIM)  # never called: every vector below is in the cache
    ws = Workspace(cache)
    for input_type, texts, seed in (("document", corp.passages, 10), ("query", questions, 11)):
        store = vector_store(ws, embedder, input_type)
        vectors = unit_vectors(len(texts), DIM, seed)
        for first in range(0, len(texts), 5_000):
            store.commit([text_key(t) for t in texts[first : first + 5_000]], vectors[first : first + 5_000])
    embed_cached(embedder, vector_store(ws, embedder, "document"), corp.passages, "document", "matrix", True)
    cfg = RETRIEVERS.settings("hybrid")

    def stage():
        res = Resources(Workspace(cache), corp, dataset, embedder)
        children = [m.build(child_config(RETRIEVERS, cfg, n), res) for m, n in ((bm25, "bm25"), (dense, "dense"))]
        return FusionRetriever(children, [1.0, 1.0], 60.0).retrieve(queries, DEPTH)

    def step(group, name, values):
        # a fresh workspace each time: the step's per-corpus work (sections, shingles, matrix) is counted
        res = Resources(Workspace(cache), corp, dataset, embedder)
        return group.build(group.settings(name, **values), res).apply(found)

    def fuse(fusion: Fusion):
        return fusion.fuse([(p.indices, p.scores) for p in found.parts.values()], [1.0, 1.0], ["bm25", "dense"])

    load = os.getloadavg()[0]
    with single_thread():
        found = stage()  # warms the page cache and the matrix entry; its lists feed every step below
        first = {}  # each step once before the rounds, as a run finds the cache a run before it left
        for label, (g, n, v) in STEPS.items():
            started = time.perf_counter()
            step(g, n, v)
            first[label] = time.perf_counter() - started
        timed = {"stage": stage, "rrf": lambda: fuse(Fusion("rrf"))}
        timed |= {label: (lambda g=g, n=n, v=v: step(g, n, v)) for label, (g, n, v) in STEPS.items()}
        timed |= {label: (lambda f=f: fuse(f)) for label, f in FUSIONS.items()}
        seconds = interleaved(timed, repeats=REPEATS)  # every item once per round: a load change hits them all
    base, rrf_seconds = seconds.pop("stage"), seconds.pop("rrf")
    added = {label: s for label, s in seconds.items() if label in STEPS}
    added |= {label: max(0.0, seconds[label] - rrf_seconds) for label in FUSIONS}  # it replaces RRF in the stage
    details = [
        f"{N_DOCS * SECTIONS:,} chunks x {N_QUERIES:,} questions, depth {DEPTH} per index, dim {DIM}",
        f"retrieval stage alone (BM25 build + search, dense search, RRF): {base:.2f} s (best of {REPEATS})",
        f"RRF itself: {rrf_seconds * 1000:.1f} ms; load average {load:.2f} -> {os.getloadavg()[0]:.2f}",
    ]
    details += [f"{label:32s} adds {s:6.3f} s   ratio {(base + s) / base:.3f}" for label, s in added.items()]
    details += [
        "first call of each step (a cold cache: MMR hashes the corpus's passages once to name its matrix): "
        + ", ".join(f"{label.split(' ')[0]} {s:.3f} s" for label, s in first.items())
    ]
    checks = [
        Check("S6 strategies", f"retrieval + {label} / retrieval alone", (base + s) / base, "<=", GOAL)
        for label, s in added.items()
    ]
    report("Goal S6: retrieval strategies", checks, details)


if __name__ == "__main__":
    main()
