"""The reference pipeline, wired in plain Python: parse -> chunk -> embed -> index -> retrieve -> fuse -> rerank
-> score."""

from __future__ import annotations

import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from rag_bench.chunk.base import Warming
from rag_bench.chunk.registry import CHUNKERS, chunk_dependencies
from rag_bench.chunk.settings import ChunkerConfig, ChunkerTools
from rag_bench.config.schema import Config
from rag_bench.core.cache import digest
from rag_bench.core.progress import quiet_while
from rag_bench.core.types import Dataset
from rag_bench.core.workspace import Workspace
from rag_bench.data.dataset import load
from rag_bench.embed.base import Embedder, Tokenizing, vector_cache_name
from rag_bench.embed.cached import embed_cached
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.embed.store import vector_store
from rag_bench.parse.run import ParseRun
from rag_bench.pipeline import throughput
from rag_bench.pipeline.result import RunResult, Stats
from rag_bench.remote.usage import Metered
from rag_bench.rerank.base import CutRerankerConfig, Prefetching, rerank
from rag_bench.rerank.registry import RERANKERS
from rag_bench.retrieve.base import Candidates, Corpus, Query, Retriever
from rag_bench.retrieve.diversity.registry import DIVERSIFIERS
from rag_bench.retrieve.expand.registry import EXPANDERS
from rag_bench.retrieve.registry import RETRIEVERS, meeting_filters
from rag_bench.retrieve.resources import Resources
from rag_bench.retrieve.steps import mean_chars
from rag_bench.retrieve.variants import with_variants
from rag_bench.score.evaluate import check_measured, evaluate


class NeedsEmbedding(Exception):
    """A plan cannot know the chunks without embedding (a semantic or cluster chunker, chunks not cached)."""


def run(cfg: Config, ws: Workspace | None = None, retriever: Retriever | None = None) -> RunResult:
    """Run the pipeline that ``cfg`` describes and score it.

    ``ws`` keeps work in memory across runs of one process (a sweep's points); None: a new one.
    ``retriever``: one built by the caller (``rag_bench.evaluate``) instead of ``cfg.retrieval``'s.
    """
    with quiet_while(cfg.quiet):  # progress output off when the run says quiet=true
        return _run(cfg, ws, retriever)


def _run(cfg: Config, ws: Workspace | None, retriever: Retriever | None) -> RunResult:
    started = time.perf_counter()
    stats = Stats()
    ws = ws if ws is not None else Workspace.open(cfg.cache_dir)
    embedded_before = ws.tally.embedded
    with stats.stage("load"):
        folder = cfg.dataset.folder
        parse = ParseRun(cfg.parser, ws.cache)
        dataset = load(cfg.dataset, ws, parse)
        stats.parse = parse_stats(parse, dataset)
        if cfg.objective is not None:  # an objective asked for must be measured (never a silent NaN)
            check_measured(cfg.objective, dataset, cfg.ks, cfg.budgets, "objective")
        embedder = ws.remember("embedder", digest(asdict(cfg.embedder)), lambda: EMBEDDERS.build(cfg.embedder))
        reranker = ws.remember("reranker", digest(asdict(cfg.reranker)), lambda: RERANKERS.build(cfg.reranker, ws))
    usage_before = {name: part.usage.as_dict() for name, part in api_parts(embedder, reranker).items()}
    with stats.stage("chunk"):
        corpus, stats.reused["chunks"] = chunk_dataset(ws, dataset, cfg.chunker, embedder, folder)
    stats.chunks = len(corpus.chunks)
    stats.mean_chunk_chars = float(np.mean([len(c) for c in corpus.chunks])) if corpus.chunks else 0.0

    def rechunk(size: int):  # expand.level=chunk: the parents, the corpus cut again at a larger size, no overlap
        parents = replace(cfg.chunker, size=size, **({"overlap": 0} if hasattr(cfg.chunker, "overlap") else {}))
        return chunk_dataset(ws, dataset, parents, embedder, folder)[0].chunks

    resources = Resources(ws, corpus, dataset, embedder, cfg.embedder.dimension, rechunk)
    if retriever is None:
        base = RETRIEVERS.build(cfg.retrieval, resources)
    else:  # the caller's own, under the same filter mode as the CLI's routes
        base = meeting_filters(retriever, cfg.retrieval, resources)
    retriever = with_variants(base, cfg.retrieval, dataset, folder)
    found = retriever.retrieve([Query.of(q) for q in dataset.questions], cfg.retrieval.depth)
    stages = add_retrieval_stats(stats, found, retriever.name)
    found = apply_steps(cfg, resources, found, stages, stats)
    ranked, scores = found.indices, found.scores
    pairs = 0
    if reranker is not None:
        pairs = int(np.sum(ranked[:, : cfg.reranker.depth] >= 0))  # question-passage pairs sent to the reranker
        with stats.stage("rerank"):
            passages = corpus.passages if found.chunks is corpus.chunks else [c.indexed_text for c in found.chunks]
            questions = [q.text for q in dataset.questions]
            ranked, scores = rerank_all(reranker, ranked, questions, passages, cfg.reranker)
        stages["reranked"] = Candidates(found.chunks, ranked, scores)
    with stats.stage("score"):
        evaluation = evaluate(
            dataset, found.chunks, ranked, scores, cfg.ks, cfg.tau, cfg.bootstrap, cfg.seed, cfg.budgets
        )
    stats.seconds = {k: round(v, 4) for k, v in stats.seconds.items()}
    add_api_usage(stats, api_parts(embedder, reranker), usage_before)
    stats.embedded = ws.tally.embedded - embedded_before
    record_throughput(ws, cfg, stats, (embedder, reranker), pairs, time.perf_counter() - started)
    files = {name: text for part in stages.values() for name, text in part.stats.files.items()}
    reusable = all(part.stats.keyed for part in (found.parts or {retriever.name: found}).values())
    return RunResult(cfg, dataset, found.chunks, ranked, scores, evaluation, stats, stages, files, reusable)


def record_throughput(ws: Workspace, cfg: Config, stats: Stats, parts: tuple, pairs: int, seconds: float) -> None:
    """Add this run's embedding, reranking and other seconds to the cache's throughput sums (``throughput.py``)."""
    embedder, reranker = parts
    embed_s = sum(v for k, v in stats.seconds.items() if k.endswith(" embed")) if stats.embedded else 0.0
    rerank_s = stats.seconds.get("rerank", 0.0)
    names = {"embed": vector_cache_name(embedder), "other": str(cfg.dataset.folder)}
    if reranker is not None:
        names["rerank"] = reranker.name
    work = {"embed": stats.embedded if embed_s > 0 else 0, "rerank": pairs, "other": 1}
    throughput.record_run(
        ws.cache, names, work, {"embed": embed_s, "rerank": rerank_s, "other": seconds - embed_s - rerank_s}
    )


def parse_stats(parse: ParseRun, dataset: Dataset) -> dict[str, object]:
    """What the parse stage did in this run (nothing when the dataset was kept from an earlier point) and what
    the parse kept of the evidence: excerpts located and lost, evidence characters kept."""
    counts = parse.counts
    spans = [(q, len(s)) for q in dataset.questions for s in q.spans]
    lost = [len(x) for q in dataset.questions for x in q.lost]
    total = sum(n for _, n in spans) + sum(lost)
    return {
        "parser": parse.settings.name,
        "files_parsed": counts.parsed,
        "files_from_cache": counts.cached,
        "files_failed": list(counts.failed),
        "pages": counts.pages,
        "empty_pages": counts.empty_pages,
        "repeated_lines_removed": counts.removed_lines,
        "near_duplicates": counts.duplicates,
        "parse_seconds": round(counts.seconds, 4),
        "evidence_lost": len(lost),
        "evidence_located": len(spans),
        "evidence_chars_kept": round(1 - sum(lost) / total, 6) if total else None,
    }


def add_retrieval_stats(stats: Stats, found: Candidates, found_name: str) -> dict[str, Candidates]:
    """Add each first-stage list's cost and details to ``stats``; return the stages (first-stage lists, "fused")."""
    parts = dict(found.parts) if found.parts else {found_name: found}
    for name, part in parts.items():
        s = part.stats
        stats.seconds[name] = stats.seconds.get(name, 0.0) + s.seconds
        for step, seconds in ({} if s.reused else s.steps).items():  # e.g. "bm25 build", "bm25 search"
            stats.seconds[f"{name} {step}"] = stats.seconds.get(f"{name} {step}", 0.0) + seconds
        stats.reused[name] = s.reused
        stats.index_bytes += s.index_bytes
        stats.cache_hits += s.cache_hits
        stats.truncated = max(stats.truncated, s.truncated)
        if s.ann_recall is not None:
            stats.ann_recall = s.ann_recall
        if s.details:
            stats.retrieval[name] = dict(s.details)
        if s.filtered_ann_recall is not None:
            stats.filtered_ann_recall = s.filtered_ann_recall
        stats.index = dict(s.index) or stats.index
    labels = [" ".join([n, str((p.stats.details or {}).get("source", ""))]).strip() for n, p in parts.items()]
    stats.retriever = f"{found_name}({', '.join(labels)})" if found.parts else labels[0]
    stats.seconds["fuse"] = found.stats.seconds if found.parts else 0.0
    return {**parts, "fused": found} if found.parts else parts


def apply_steps(cfg: Config, resources: Resources, found: Candidates, stages: dict, stats: Stats) -> Candidates:
    """Run the post-retrieval steps the config names (``expand``, then ``diversity``); each list joins ``stages``.

    ``stats.strategies[group]``: the option, its seconds and texts embedded, and the mean characters in the
    top ``report_k`` before and after it (what a bigger returned unit costs a context), with its own details.
    """
    for group, settings in ((EXPANDERS, cfg.expand), (DIVERSIFIERS, cfg.diversity)):
        with stats.stage(group.group):
            step = group.build(settings, resources)
            after = None if step is None else step.apply(found)
        if after is None:
            del stats.seconds[group.group]
            continue
        k = cfg.report_k
        stats.strategies[group.group] = {
            "option": group.name_of(settings),
            "seconds": after.stats.seconds,
            "embedded": after.stats.embedded,
            f"chars@{k} before": mean_chars(found, k),
            f"chars@{k} after": mean_chars(after, k),
            **dict(after.stats.details or {}),
        }
        stages[step.stage] = after
        found = after
    return found


def rerank_all(reranker, ranked: np.ndarray, questions: list[str], passages: list[str], cfg: CutRerankerConfig):
    """Rerank every question's head; rerankers that batch well see all questions first (``prefetch``)."""
    if isinstance(reranker, Prefetching):
        reranker.prefetch(questions, [[passages[c] for c in row[: cfg.depth] if c >= 0] for row in ranked])
    return rerank(ranked, questions, passages, reranker, cfg.depth, cfg.keep)


def api_parts(embedder, reranker) -> dict[str, object]:
    """The components that call a paid API (they carry a ``usage`` counter)."""
    parts = {"embedder": embedder, "reranker": reranker}
    return {name: part for name, part in parts.items() if isinstance(part, Metered)}


def add_api_usage(stats: Stats, parts: dict[str, object], before: dict[str, dict]) -> None:
    """What each API component was asked for during this run (components live across sweep points)."""
    for name, part in parts.items():
        used = part.usage.since(before[name])
        stats.api[name] = used
        stats.tokens += used["tokens"]
        stats.cost_usd += used["estimated_cost_usd"] or 0.0


def chunk_dataset(
    ws: Workspace,
    dataset: Dataset,
    cfg: ChunkerConfig,
    embedder: Embedder,
    folder: Path | None = None,
    dry: bool = False,
) -> tuple[Corpus, bool]:
    """All chunks of the dataset in corpus order, and whether they came from the cache.

    The key holds everything the chunks depend on: the documents, the settings, the embedder
    when it tokenizes (unit=tokens) or embeds (semantic, cluster), and the files they read.
    ``dry`` (a plan, ``plan.py``): chunks not cached are cut but not stored, and a chunker that would
    embed to cut raises ``NeedsEmbedding`` instead.
    """
    fingerprint = digest(*((d.id, d.title, d.text) for d in dataset.documents))
    key = digest("chunks", fingerprint, chunk_dependencies(cfg, embedder, folder))
    store = vector_store(ws, embedder, "document")

    def embed(texts):
        if dry:
            raise NeedsEmbedding(f"chunker={cfg.name} embeds {len(texts)} texts to cut its chunks")
        return embed_cached(embedder, store, texts, "document", label=f"chunking ({cfg.name})")[0]

    def compute():
        tokenizer = embedder if isinstance(embedder, Tokenizing) else None
        tools = ChunkerTools(
            token_spans=tokenizer.token_spans if tokenizer else None,
            special_tokens=tokenizer.special_tokens if tokenizer else 0,
            embed=embed,
            folder=folder,
        )
        chunker = CHUNKERS.build(cfg, tools)
        if isinstance(chunker, Warming):
            chunker.warm(dataset.documents)  # one batched, cached embedding pass for all documents
        return [c for d in dataset.documents for c in chunker.split(d)]

    if dry:  # a plan of a sweep cuts each chunking once, and stores nothing
        chunks, cached = ws.remember(
            "planned chunks", key, lambda: ws.cache.get_or_compute("chunks", key, compute, False)
        )
    else:
        chunks, cached = ws.cache.get_or_compute("chunks", key, compute)
    return Corpus(key, chunks, {d.id: d.metadata for d in dataset.documents}), cached
