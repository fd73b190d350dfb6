"""Settings of ``rag-bench rewrite``: the verb's schema, composed from ``configs/rewrite/`` with the dataset group."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omegaconf import MISSING

from rag_bench.config.verb import Verb
from rag_bench.core.errors import ConfigError
from rag_bench.core.options import fill_defaults
from rag_bench.data.dataset import DatasetConfig
from rag_bench.data.variants import check_kinds
from rag_bench.rewrite.registry import REWRITERS


@dataclass
class RewriteConfig:
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
    generator: Any = MISSING  # a generator's settings (registry.py REWRITERS)
    kinds: list[str] | None = None  # null = every kind the generator writes
    paraphrases: int = 3  # paraphrases per question
    subquestions: int = 4  # at most this many sub-questions per question
    out: str | None = None  # null = results/variants/<dataset>-<generator>.jsonl
    replace: bool = False  # true: out may overwrite a file of the dataset (its questions.jsonl ...)
    cache_dir: str | None = None  # null = $RAG_BENCH_CACHE or the user cache folder

    def __post_init__(self) -> None:
        fill_defaults(self, (REWRITERS,))  # built in Python: the default generator
        if self.kinds is not None:
            check_kinds(self.kinds, "kinds")
        if self.paraphrases < 1 or self.subquestions < 2:
            raise ConfigError(
                f"paraphrases ({self.paraphrases}) must be at least 1 and subquestions ({self.subquestions}) at least 2"
            )


VERB = Verb("rewrite", "rewrite", RewriteConfig, (REWRITERS,))
