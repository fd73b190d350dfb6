"""``rag-bench contextualize [overrides]``: write the contexts file for ``chunker.prefix=contexts``.

Chunks the dataset exactly as a run with the same ``dataset``, ``chunker`` and ``embedder``
settings would, then writes one short context per chunk (``rag_bench/chunk/contexts.py``).
Settings are composed with Hydra from ``configs/contextualize/`` plus the main groups, e.g.
``rag-bench contextualize dataset=annual-report chunker=semantic generator=anthropic out=ctx.jsonl``.
Generators:
  offline    deterministic: document title, heading trail above the chunk, and the document's
             most distinctive terms (top tf-idf over the corpus documents)
  anthropic  the Messages API (optional extra ``anthropic``): the whole document in a cached
             prompt prefix (``cache_control``), one context of 50 to 100 tokens per chunk
Retrieval runs only read the file; no model is called while scoring.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from hydra.core.config_store import ConfigStore

from rag_bench.chunk.contexts import ContextEntry, read_contexts, write_contexts
from rag_bench.chunk.settings import SizedChunkerConfig
from rag_bench.config.schema import register as register_stages
from rag_bench.contextualize.anthropic import AnthropicContexts
from rag_bench.contextualize.offline import OfflineContexts
from rag_bench.contextualize.settings import (
    AnthropicContextConfig,
    ContextGeneratorConfig,
    ContextualizeConfig,
    OfflineContextConfig,
)
from rag_bench.core.files import check_writable
from rag_bench.core.progress import progress
from rag_bench.core.types import Chunk

SCHEMA_NAME = "rag_bench_contextualize_schema"


@dataclass(frozen=True)
class ContextEntryPoint:
    schema: type[ContextGeneratorConfig]
    build: Callable  # (cfg, documents, cache) -> a generator with contexts(doc, chunks, bar), usage, close()


GENERATORS: dict[str, ContextEntryPoint] = {
    "offline": ContextEntryPoint(OfflineContextConfig, OfflineContexts),
    "anthropic": ContextEntryPoint(AnthropicContextConfig, AnthropicContexts),
}


def register() -> None:
    """Store the verb's schema (configs/contextualize/config.yaml) and its generators' (schema/generator/...)."""
    register_stages()  # the dataset, chunker and embedder schemas
    store = ConfigStore.instance()
    store.store(name=SCHEMA_NAME, node=ContextualizeConfig)
    for name, entry in GENERATORS.items():
        store.store(group="schema/contextualize/generator", name=name, node=entry.schema)


def main(argv: Sequence[str]) -> int:
    """Run the verb; RagBenchError propagates to ``rag_bench.entry.cli`` (one line, exit 2)."""
    parser = argparse.ArgumentParser(
        prog="rag-bench contextualize",
        description="Write a contexts file (chunker.prefix=contexts) for the chunks these settings produce.",
    )
    parser.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. dataset=annual-report chunker=semantic")
    settings = compose_settings(parser.parse_args(list(argv)).overrides)
    path, count, usage = contextualize(settings)
    print(f"wrote {count} contexts to {path}")
    if usage:
        print("tokens: " + ", ".join(f"{k} {v}" for k, v in usage.items()))
    print(f"use them with: chunker.prefix=contexts chunker.contexts={path} (and the same chunker settings)")
    return 0


def compose_settings(overrides: Sequence[str] = ()) -> ContextualizeConfig:
    """The checked settings from ``configs/contextualize/config.yaml``, the main groups and ``overrides``."""
    from rag_bench.config.compose import compose
    from rag_bench.config.schema import validate
    from rag_bench.core.paths import project_folder

    register()
    configs = project_folder("configs")
    label = "contextualize settings"
    cfg = compose(configs / "contextualize", overrides, label, search=configs, groups={"generator": GENERATORS})
    return validate(cfg)


def contextualize(settings: ContextualizeConfig) -> tuple[Path, int, dict[str, int]]:
    """Write the contexts file; returns its path, the number of contexts and the API token counts."""
    from rag_bench.core.workspace import Workspace
    from rag_bench.data.bundled import dataset_folder
    from rag_bench.embed.registry import build_embedder
    from rag_bench.pipeline.run import chunk_dataset, load

    out = check_writable(settings.out or default_out(settings))  # before any (paid) work, not after
    ws = Workspace.open(settings.cache_dir)
    dataset = load(ws, dataset_folder(settings.dataset.name, settings.dataset.path), settings.dataset.label)
    generator = GENERATORS[settings.generator.name].build(settings.generator, dataset.documents, ws.cache)
    chunking = replace(settings.chunker, prefix="none", contexts=None)  # spans do not depend on the prefix
    corpus, _ = chunk_dataset(ws, dataset, chunking, build_embedder(settings.embedder))
    by_doc: dict[str, list[Chunk]] = {}
    for chunk in corpus.chunks:
        by_doc.setdefault(chunk.doc_id, []).append(chunk)
    entries = {e.key: e for e in read_contexts(out).by_key.values()} if settings.merge and out.is_file() else {}
    try:
        with progress(len(corpus.chunks), "contextualizing", "chunk") as bar:
            for doc in dataset.documents:
                chunks = by_doc.get(doc.id, [])
                for chunk, text in zip(chunks, generator.contexts(doc, chunks, bar), strict=True):
                    entry = ContextEntry.of(doc, chunk, text)
                    entries[entry.key] = entry
    finally:
        generator.close()
    return out, write_contexts(out, entries.values()), generator.usage


def default_out(settings: ContextualizeConfig) -> str:
    """results/contexts/<dataset>-<chunker>[-<size><unit>]-<generator>.jsonl"""
    c = settings.chunker
    size = f"-{c.size}{c.unit}" if isinstance(c, SizedChunkerConfig) else ""
    return f"results/contexts/{settings.dataset.label}-{c.name}{size}-{settings.generator.name}.jsonl"
