"""Settings of ``rag-bench contextualize``: the verb's schema, composed from ``configs/contextualize/``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omegaconf import MISSING

from rag_bench.chunk.registry import CHUNKERS
from rag_bench.config.verb import Verb
from rag_bench.contextualize.registry import GENERATORS
from rag_bench.core.options import fill_defaults
from rag_bench.data.dataset import DatasetConfig
from rag_bench.embed.registry import EMBEDDERS


@dataclass
class ContextualizeConfig:
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
    chunker: Any = MISSING  # a chunker's settings (chunk/registry.py)
    embedder: Any = MISSING  # an embedder's settings (embed/registry.py)
    generator: Any = MISSING  # a context generator's settings (registry.py GENERATORS)
    out: str | None = None  # null = results/contexts/<dataset>-<chunker>-<size><unit>-<generator>.jsonl
    replace: bool = False  # true: out may overwrite a file of the dataset (its questions.jsonl ...)
    merge: bool = False  # keep the contexts of other chunks already in ``out``
    cache_dir: str | None = None  # null = $RAG_BENCH_CACHE or the user cache folder

    def __post_init__(self) -> None:
        fill_defaults(self, (CHUNKERS, EMBEDDERS, GENERATORS))  # built in Python: each group's default option


VERB = Verb("contextualize", "contextualize", ContextualizeConfig, (GENERATORS,))
