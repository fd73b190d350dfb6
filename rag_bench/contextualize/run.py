"""``rag-bench contextualize``'s work: chunk the dataset as a run with the same settings would, then write
one short context per chunk into the contexts file (``rag_bench/chunk/contexts.py``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rag_bench.chunk.contexts import ContextEntry, read_contexts, write_contexts
from rag_bench.chunk.settings import SizedChunkerConfig
from rag_bench.contextualize.registry import GENERATORS
from rag_bench.contextualize.settings import ContextualizeConfig
from rag_bench.core.files import check_writable
from rag_bench.core.progress import progress
from rag_bench.core.types import Chunk
from rag_bench.core.workspace import Workspace
from rag_bench.data.dataset import check_outputs_outside, load
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.pipeline.run import chunk_dataset


def contextualize(settings: ContextualizeConfig) -> tuple[Path, int, dict[str, int]]:
    """Write the contexts file; returns its path, the number of contexts and the API token counts."""
    out = check_writable(settings.out or default_out(settings))  # before any (paid) work, not after
    check_outputs_outside(settings.dataset, [out], settings.replace or settings.merge and out.is_file())
    ws = Workspace.open(settings.cache_dir)
    dataset = load(settings.dataset, ws)
    generator = GENERATORS.build(settings.generator, dataset.documents, ws.cache)
    chunking = replace(settings.chunker, prefix="none", contexts=None)  # spans do not depend on the prefix
    corpus, _ = chunk_dataset(ws, dataset, chunking, EMBEDDERS.build(settings.embedder))
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
    return f"results/contexts/{settings.dataset.name}-{c.name}{size}-{settings.generator.name}.jsonl"
