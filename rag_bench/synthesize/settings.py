"""Settings of ``rag-bench synthesize``: the verb's schema and its checks, composed from ``configs/synthesize/``.

The dataset, chunker and embedder groups are the main ones: the chunker cuts the corpus for
the BM25-alone check, the embedder (query mode, through the vector cache) compares questions
for near-duplicates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omegaconf import MISSING

from rag_bench.chunk.registry import CHUNKERS
from rag_bench.config.verb import Verb
from rag_bench.core.errors import ConfigError
from rag_bench.core.options import fill_defaults
from rag_bench.data.dataset import DatasetConfig
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.synthesize.registry import GENERATORS


@dataclass
class ChecksConfig:
    near_duplicate: float = 0.9  # reject a question whose cosine to an earlier one is at least this
    easy_share: float = 0.8  # flag a question copying at least this share of its terms from the evidence
    reject_easy: bool = False  # reject (not only flag) questions that copy easy_share AND BM25 ranks first
    max_per_document: int | None = None  # keep at most this many per document (null = no cap)
    max_per_category: int | None = None  # keep at most this many per category (null = no cap)
    tau: float = 0.5  # the BM25 check's chunk-span hit rule, as in scoring

    def __post_init__(self) -> None:
        for name in ("near_duplicate", "easy_share", "tau"):
            if not 0 <= getattr(self, name) <= 1:
                raise ConfigError(f"checks.{name} ({getattr(self, name)}) must lie between 0 and 1")
        for name in ("max_per_document", "max_per_category"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ConfigError(f"checks.{name} ({value}) must be at least 1, or null for no cap")


@dataclass
class SynthesizeConfig:
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
    chunker: Any = MISSING  # a chunker's settings (chunk/registry.py)
    embedder: Any = MISSING  # an embedder's settings (embed/registry.py)
    generator: Any = MISSING  # a candidate generator's settings (registry.py GENERATORS)
    checks: ChecksConfig = field(default_factory=ChecksConfig)
    out: str | None = None  # null = results/synthesize/<dataset>-<generator>.jsonl
    replace: bool = False  # true: out may overwrite a file of the dataset (its questions.jsonl ...)
    cache_dir: str | None = None  # null = $RAG_BENCH_CACHE or the user cache folder

    def __post_init__(self) -> None:
        fill_defaults(self, (CHUNKERS, EMBEDDERS, GENERATORS))  # built in Python: each group's default option


VERB = Verb("synthesize", "synthesize", SynthesizeConfig, (GENERATORS,))
