"""Chunkers by config name (``chunker=fixed|recursive|...``): each one's settings schema and builder.

Adding a chunker: a module with its settings dataclass (derived from ``chunk/settings.py``) and a
``build(cfg, tools) -> Chunker``, one entry here, and ``configs/chunker/<name>.yaml``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from pathlib import Path

from rag_bench.chunk import cluster, fixed, given, langchain, recursive, semantic, sentence
from rag_bench.chunk.base import Chunker
from rag_bench.chunk.contexts import FIX as CONTEXTS_FIX
from rag_bench.chunk.contexts import file_hash, read_contexts
from rag_bench.chunk.given import MISSING_FIX as MANIFEST_FIX
from rag_bench.chunk.settings import ChunkerConfig, ChunkerTools
from rag_bench.core.options import settings_of


@dataclass(frozen=True)
class ChunkerEntry:
    schema: type[ChunkerConfig]
    build: Callable[[ChunkerConfig, ChunkerTools], Chunker]


CHUNKERS: dict[str, ChunkerEntry] = {
    "fixed": ChunkerEntry(fixed.FixedConfig, fixed.build),
    "recursive": ChunkerEntry(recursive.RecursiveConfig, recursive.build),
    "langchain": ChunkerEntry(langchain.LangChainConfig, langchain.build),
    "sentence": ChunkerEntry(sentence.SentenceConfig, sentence.build),
    "semantic": ChunkerEntry(semantic.SemanticConfig, semantic.build),
    "cluster": ChunkerEntry(cluster.ClusterConfig, cluster.build),
    "given": ChunkerEntry(given.GivenConfig, given.build),
}


def chunker_config(name: str, **settings) -> ChunkerConfig:
    """The checked settings of chunker ``name`` (its schema's defaults, then ``settings``)."""
    return settings_of("chunker", name, CHUNKERS, settings)


def build_chunker(cfg: ChunkerConfig, tools: ChunkerTools) -> Chunker:
    """The chunker ``cfg`` describes; the contexts file (``prefix=contexts``) is read once, here."""
    if cfg.prefix == "contexts" and tools.contexts is None:
        tools = replace(tools, contexts=read_contexts(cfg.contexts, contextualize_fix(cfg)))
    return CHUNKERS[cfg.name].build(cfg, tools)


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
