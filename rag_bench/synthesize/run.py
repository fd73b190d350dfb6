"""``rag-bench synthesize [overrides]``: generate candidate questions, check them, write what passed.

    rag-bench synthesize dataset.path=data/x generator=replay generator.path=candidates.jsonl out=review.jsonl
    rag-bench synthesize dataset.path=data/x generator=anthropic out=review.jsonl          # ANTHROPIC_API_KEY

Writes ``out`` (native questions.jsonl rows with ``source: synthetic``, the generator's
settings and review ``flags``), ``<out>.rejects.jsonl`` (each rejected candidate with its
reason) and ``<out>.summary.json`` (counts by reason, flags, balance, tokens, estimated cost).
No model is called while retrieval is scored: this is a separate step.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from rag_bench.core.cache import atomic_write
from rag_bench.core.progress import progress
from rag_bench.core.types import Dataset
from rag_bench.data.jsonl import write_jsonl
from rag_bench.data.native import load_documents, load_questions
from rag_bench.embed.store import vector_store
from rag_bench.synthesize.checks import BM25Alone, Checker, Verdict, flag_kind
from rag_bench.synthesize.registry import GENERATORS, compose_settings
from rag_bench.synthesize.settings import SynthesizeConfig


@dataclass(frozen=True)
class Outcome:
    """What a synthesize run wrote."""

    out: Path
    rejects: Path
    summary_path: Path
    verdicts: list[Verdict]
    summary: dict


def main(argv: Sequence[str]) -> int:
    """Run the verb; RagBenchError propagates to ``rag_bench.entry.cli`` (one line, exit 2)."""
    parser = argparse.ArgumentParser(prog="rag-bench synthesize", description="Generate and check candidate questions.")
    parser.add_argument(
        "overrides", nargs="*", help="Hydra overrides, e.g. generator=replay generator.path=FILE out=FILE"
    )
    settings = compose_settings(parser.parse_args(list(argv)).overrides)
    done = synthesize(settings)
    s = done.summary
    print(f"kept {s['kept']} of {s['candidates']} candidates -> {done.out}")
    if s["rejected"]:
        print("rejected: " + ", ".join(f"{n} {reason}" for reason, n in s["rejected"].items()) + f" -> {done.rejects}")
    if s["flagged"]:
        print("flagged for review: " + ", ".join(f"{n} {flag}" for flag, n in s["flagged"].items()))
    if s["usage"]:
        cost = s["estimated_cost_usd"]
        priced = "unknown (model not in configs/synthesize/prices.yaml)" if cost is None else f"${cost:.4f}"
        print("tokens: " + ", ".join(f"{k} {v}" for k, v in s["usage"].items()) + f"; estimated cost {priced}")
    print(f"review them with: rag-bench label {s['dataset_folder']} --questions {done.out}")
    return 0


def synthesize(settings: SynthesizeConfig) -> Outcome:
    """Generate, check and write; returns the paths, the verdicts and the summary."""
    from rag_bench.core.workspace import Workspace
    from rag_bench.data.bundled import dataset_folder
    from rag_bench.embed.cached import embed_cached
    from rag_bench.embed.registry import build_embedder
    from rag_bench.pipeline.run import chunk_dataset

    settings.generator.require()
    ws = Workspace.open(settings.cache_dir)
    folder = dataset_folder(settings.dataset.name, settings.dataset.path)
    documents = load_documents(folder)
    by_id = {d.id: d for d in documents}
    questions = folder / "questions.jsonl"
    existing = load_questions(questions, by_id) if questions.is_file() else ()
    embedder = build_embedder(settings.embedder)
    corpus, _ = chunk_dataset(
        ws, Dataset(settings.dataset.name, documents, tuple(existing)), settings.chunker, embedder, folder
    )
    store = vector_store(ws, embedder, "query")

    def embed(texts: list[str]):
        return embed_cached(embedder, store, texts, "query", label="embedding questions")[0]

    generator = GENERATORS[settings.generator.name].build(settings.generator, documents, ws.cache)
    try:
        with progress(None, "generating", "request") as bar:
            candidates = list(generator.candidates(documents, bar))
    finally:
        generator.close()
    checker = Checker(settings.checks, by_id, existing, embed, BM25Alone(corpus.chunks, settings.checks.tau))
    verdicts = checker.check(candidates, generator.settings)
    out = Path(settings.out or f"results/synthesize/{settings.dataset.name}-{settings.generator.name}.jsonl")
    stem = out.with_suffix("")
    rejects, summary_path = Path(f"{stem}.rejects.jsonl"), Path(f"{stem}.summary.json")
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
