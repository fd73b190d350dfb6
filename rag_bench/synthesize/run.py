"""``rag-bench synthesize``'s work: generate candidate questions, check them, write what passed.

    rag-bench synthesize dataset.path=data/x generator=replay generator.path=candidates.jsonl out=review.jsonl
    rag-bench synthesize dataset.path=data/x generator=anthropic out=review.jsonl          # ANTHROPIC_API_KEY
    rag-bench synthesize dataset.path=data/x generator=openai generator.model=gpt-4o-mini out=review.jsonl

Writes ``out`` (native questions.jsonl rows with ``source: synthetic``, the generator's
settings and review ``flags``), ``<out>.rejects.jsonl`` (each rejected candidate with its
reason) and ``<out>.summary.json`` (counts by reason, flags, balance, tokens, estimated cost).
No model is called while retrieval is scored: this is a separate step.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from rag_bench.core.cache import atomic_write
from rag_bench.core.progress import progress
from rag_bench.core.types import Dataset
from rag_bench.data.dataset import check_outputs_outside
from rag_bench.data.jsonl import write_jsonl
from rag_bench.data.native import load_documents, load_questions
from rag_bench.embed.store import vector_store
from rag_bench.synthesize.checks import BM25Alone, Checker, Verdict, flag_kind
from rag_bench.synthesize.registry import GENERATORS
from rag_bench.synthesize.settings import SynthesizeConfig


@dataclass(frozen=True)
class Outcome:
    """What a synthesize run wrote."""

    out: Path
    rejects: Path
    summary_path: Path
    verdicts: list[Verdict]
    summary: dict


def synthesize(settings: SynthesizeConfig) -> Outcome:
    """Generate, check and write; returns the paths, the verdicts and the summary."""
    from rag_bench.core.workspace import Workspace
    from rag_bench.embed.cached import embed_cached
    from rag_bench.embed.registry import EMBEDDERS
    from rag_bench.pipeline.run import chunk_dataset

    out = Path(settings.out or f"results/synthesize/{settings.dataset.name}-{settings.generator.name}.jsonl")
    stem = out.with_suffix("")
    rejects, summary_path = Path(f"{stem}.rejects.jsonl"), Path(f"{stem}.summary.json")
    check_outputs_outside(settings.dataset, [out, rejects, summary_path], settings.replace)  # before any work
    ws = Workspace.open(settings.cache_dir)
    folder = settings.dataset.folder
    documents = load_documents(folder)
    generator = GENERATORS.build(settings.generator, documents, ws.cache)  # its settings checked before any work
    by_id = {d.id: d for d in documents}
    questions = folder / "questions.jsonl"
    existing = load_questions(questions, by_id) if questions.is_file() else ()
    embedder = EMBEDDERS.build(settings.embedder)
    corpus, _ = chunk_dataset(
        ws, Dataset(settings.dataset.name, documents, tuple(existing)), settings.chunker, embedder, folder
    )
    store = vector_store(ws, embedder, "query")

    def embed(texts: list[str]):
        return embed_cached(embedder, store, texts, "query", label="embedding questions")[0]

    try:
        with progress(None, "generating", "request") as bar:
            candidates = list(generator.candidates(documents, bar))
    finally:
        generator.close()
    checker = Checker(settings.checks, by_id, existing, embed, BM25Alone(corpus.chunks, settings.checks.tau))
    verdicts = checker.check(candidates, generator.settings)
    write_jsonl(out, [v.row for v in verdicts if v.row is not None])
    write_jsonl(rejects, [reject_row(v) for v in verdicts if v.row is None])
    summary = summarise(settings, folder, verdicts, generator)
    data = (json.dumps(summary, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    atomic_write(summary_path, lambda handle: handle.write(data))
    return Outcome(out, rejects, summary_path, verdicts, summary)


def reject_row(v: Verdict) -> dict:
    c = v.candidate
    return {
        "origin": c.origin,
        "reason": v.reason,
        "detail": v.detail,
        "doc_id": c.doc_id,
        "question": c.question,
        "excerpt": c.excerpt,
    }


def summarise(settings: SynthesizeConfig, folder: Path, verdicts: list[Verdict], generator) -> dict:
    kept = [v.row for v in verdicts if v.row is not None]
    flags = Counter(flag_kind(f) for r in kept for f in r["flags"])
    return {
        "dataset_folder": str(folder),
        "generator": generator.settings,
        "checks": asdict(settings.checks),
        "candidates": len(verdicts),
        "kept": len(kept),
        "rejected": dict(Counter(v.reason for v in verdicts if v.row is None).most_common()),
        "flagged": dict(sorted(flags.items())),
        "by_document": dict(Counter(r["evidence"][0]["doc_id"] for r in kept).most_common()),
        "by_category": dict(Counter(r.get("category") or "(none)" for r in kept).most_common()),
        "usage": generator.usage,
        "estimated_cost_usd": generator.cost_usd,
    }
