"""Settings of ``rag-bench check-generation``: the verb's schema, composed from ``configs/generate/``.

The group ``generator`` (extractive, replay, anthropic, openai) is ``registry.py``'s. Unknown keys fail while
composing; ``__post_init__`` checks the values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from omegaconf import MISSING

from rag_bench.config.verb import Verb
from rag_bench.core.errors import ConfigError
from rag_bench.core.options import fill_defaults
from rag_bench.generate.registry import GENERATORS


@dataclass
class GenerateConfig:
    generator: Any = MISSING  # a generator's settings (registry.py GENERATORS)
    passages: int = 5  # top chunks of each question put in the prompt, best first
    correct_f1: float = 0.5  # an answer is correct on exact match, containment, or token F1 >= this
    tau: float | None = None  # evidence overlap threshold; null = the run's tau
    cache_dir: str | None = None  # null = $RAG_BENCH_CACHE or the user cache folder

    def __post_init__(self) -> None:
        fill_defaults(self, (GENERATORS,))  # built in Python: the default generator
        if self.passages < 1:
            raise ConfigError(f"passages ({self.passages}) must be at least 1")
        if not 0 <= self.correct_f1 <= 1:
            raise ConfigError(f"correct_f1 ({self.correct_f1}) must lie between 0 and 1")
        if self.tau is not None and not 0 <= self.tau <= 1:
            raise ConfigError(f"tau ({self.tau}) must lie between 0 and 1, or be null for the run's tau")


VERB = Verb("check-generation", "generate", GenerateConfig, (GENERATORS,), main_groups=False)
