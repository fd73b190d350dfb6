"""Chunkers by config name (``chunker=fixed|recursive|...``): each one's settings schema and builder.

Adding a chunker: a module with its settings dataclass (derived from ``chunk/settings.py``) and a
``build(cfg, tools) -> Chunker``, one entry here, and ``configs/chunker/<name>.yaml``. Every chunker
may prefix its chunks with a contexts file (``chunker.prefix=contexts``), read once here, when built.
"""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path

from rag_bench.chunk.base import Chunker
from rag_bench.chunk.contexts import FIX as CONTEXTS_FIX
from rag_bench.chunk.contexts import file_hash, read_contexts
from rag_bench.chunk.given import MISSING_FIX as MANIFEST_FIX
from rag_bench.chunk.settings import ChunkerConfig, ChunkerTools
from rag_bench.core.options import Option, Options


class ChunkerOptions(Options):
    """The chunkers; building one reads its contexts file first (``prefix=contexts``)."""

    def build(self, cfg: ChunkerConfig, tools: ChunkerTools) -> Chunker:
        if cfg.prefix == "contexts" and tools.contexts is None:
            tools = replace(tools, contexts=read_contexts(cfg.contexts, contextualize_fix(cfg)))
        return super().build(cfg, tools)


CHUNKERS = ChunkerOptions(
    "chunker",
    default="recursive",
    options={
        "fixed": Option("rag_bench.chunk.fixed:FixedConfig", "rag_bench.chunk.fixed:build"),
        "recursive": Option("rag_bench.chunk.recursive:RecursiveConfig", "rag_bench.chunk.recursive:build"),
        "langchain": Option("rag_bench.chunk.langchain:LangChainConfig", "rag_bench.chunk.langchain:build"),
        "sentence": Option("rag_bench.chunk.sentence:SentenceConfig", "rag_bench.chunk.sentence:build"),
        "semantic": Option("rag_bench.chunk.semantic:SemanticConfig", "rag_bench.chunk.semantic:build"),
        "cluster": Option("rag_bench.chunk.cluster:ClusterConfig", "rag_bench.chunk.cluster:build"),
        "given": Option("rag_bench.chunk.given:GivenConfig", "rag_bench.chunk.given:build"),
    },
)


# a file a chunker reads -> how to get it when it is missing
FILE_FIXES = {"contexts": CONTEXTS_FIX, "manifest": MANIFEST_FIX}


def chunk_dependencies(cfg: ChunkerConfig, embedder, folder: Path | None) -> dict:
    """What a corpus's chunks depend on beyond the documents: settings, tokenizer, model, file contents."""
    settings = {f.name: getattr(cfg, f.name) for f in fields(cfg) if f.name not in ("contexts", "manifest")}
    return {
        "settings": settings,
        "tokenizer": embedder.name if cfg.unit_name == "tokens" else None,
        "model": (embedder.name, embedder.dimension) if cfg.embeds else None,
        "files": {name: file_hash(path, FILE_FIXES[name]) for name, path in sorted(cfg.files(folder).items())},
    }


def contextualize_fix(cfg: ChunkerConfig) -> str:
    """The advice for a missing context: the contextualize command with this chunker's settings."""
    values = {f.name: getattr(cfg, f.name) for f in fields(cfg) if f.name not in ("name", "prefix", "contexts")}
    settings = " ".join(
        [f"chunker={cfg.name}", *(f"chunker.{k}={'null' if v is None else v}" for k, v in values.items())]
    )
    return (
        f"run `rag-bench contextualize {settings}` with this run's dataset and embedder settings "
        "and pass the file it writes as chunker.contexts"
    )
