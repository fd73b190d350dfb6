"""What a retriever is built with: the run's workspace, corpus, embedder and dataset."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag_bench.core.types import Chunk, Dataset
from rag_bench.core.workspace import Workspace
from rag_bench.embed.base import Embedder
from rag_bench.retrieve.base import Corpus


@dataclass(frozen=True)
class Resources:
    workspace: Workspace
    corpus: Corpus
    dataset: Dataset
    embedder: Embedder | None = None
    dimension: int | None = None  # embedder.dimension as configured (null = the model's native one)
    rechunk: Callable[[int], Sequence[Chunk]] | None = None  # the corpus cut again by the run's chunker at a size
