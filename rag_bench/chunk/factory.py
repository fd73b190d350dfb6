"""The chunker a ``ChunkerConfig`` names, with what it needs from the other stages."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from rag_bench.chunk.base import EMBEDDING_STRATEGIES, Chunker, EmbeddingChunker, RangeChunker
from rag_bench.chunk.contexts import contextualize_fix, file_hash, read_contexts
from rag_bench.chunk.given import GivenChunker
from rag_bench.embed.base import Embedder

MANIFEST = "chunks.jsonl"  # written by `rag-bench import prechunked`


def build_chunker(
    cfg, embedder: Embedder, embed: Callable[[Sequence[str]], np.ndarray], folder: Path | None = None
) -> Chunker:
    """The chunker ``cfg`` names.

    Token units use the embedder's own tokenizer; semantic and cluster chunkers call
    ``embed`` (document mode, through the vector cache); ``given`` reads the manifest
    (``chunker.manifest``, else ``chunks.jsonl`` in the dataset ``folder``); the
    ``contexts`` prefix reads its file once, here.
    """
    contexts = read_contexts(cfg.contexts, contextualize_fix(cfg)) if cfg.prefix == "contexts" else None
    if cfg.name == "given":
        return GivenChunker(manifest_path(cfg, folder), cfg.prefix, contexts)
    tokens = {
        "token_spans": getattr(embedder, "token_spans", None),
        "special_tokens": getattr(embedder, "special_tokens", 0),
    }
    if cfg.name in EMBEDDING_STRATEGIES:
        splitter = EMBEDDING_STRATEGIES[cfg.name](cfg)
        return EmbeddingChunker(splitter, embed, cfg.unit, cfg.prefix, contexts=contexts, **tokens)
    return RangeChunker(cfg.name, cfg.size, cfg.overlap_units, cfg.unit, cfg.prefix, contexts=contexts, **tokens)


def manifest_path(cfg, folder: Path | None) -> Path:
    return Path(cfg.manifest) if cfg.manifest else Path(folder or ".") / MANIFEST


def chunk_dependencies(cfg, embedder: Embedder, folder: Path | None) -> tuple:
    """What the chunks depend on beyond the documents and settings: tokenizer, model, files."""
    tokenizer = embedder.name if cfg.unit == "tokens" else None
    model = (embedder.name, embedder.dimension) if cfg.name in EMBEDDING_STRATEGIES else None
    contexts = file_hash(cfg.contexts) if cfg.prefix == "contexts" else None
    manifest = file_hash(str(manifest_path(cfg, folder))) if cfg.name == "given" else None
    return tokenizer, model, contexts, manifest
