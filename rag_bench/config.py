"""The run's configuration: the top-level schema, and every stage's schemas registered with Hydra.

Values live in YAML under ``configs/`` (one group per stage). Each option of a group has its
own dataclass schema, kept next to its code and listed in its stage's registry
(``chunk/registry.py``, ``embed/registry.py``, ``rerank/registry.py``); ``register`` stores
them in Hydra's ConfigStore as ``schema/<group>/<name>``, and each YAML option inherits its
schema through its defaults list (``- /schema/chunker/fixed@_here_``). So a key that belongs to
another option, or a typo, fails while Hydra composes; ``validate`` turns the composed config
into the dataclasses, whose ``__post_init__`` checks the values before any work starts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING, DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from rag_bench.chunk.registry import CHUNKERS
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.errors import ConfigError
from rag_bench.rerank.registry import RERANKERS
from rag_bench.variants import not_a_setting

RETRIEVAL_MODES = ("bm25", "dense", "hybrid")
GROUPS = {"chunker": CHUNKERS, "embedder": EMBEDDERS, "reranker": RERANKERS}
DEFAULT_CHOICES = {"chunker": "recursive", "embedder": "local", "reranker": "none"}  # as configs/config.yaml


def _one_of(key: str, value: object, allowed: tuple[str, ...] | list[str]) -> None:
    if value not in allowed:
        raise ConfigError(f"{key} ({value!r}) must be one of: {', '.join(allowed)}")


@dataclass
class DatasetConfig:
    name: str = "kestrel-kb"  # a bundled dataset under datasets/
    path: str | None = None  # any folder in the native format; overrides name


@dataclass
class RetrievalConfig:
    mode: str = "hybrid"
    depth: int = 20  # candidates taken from each index
    k_rrf: float = 60.0
    weights: list[float] = field(default_factory=lambda: [1.0, 1.0])  # [bm25, dense] in RRF
    analyzer: str = "identifier"
    k1: float = 1.5
    b: float = 0.75
    bm25_variant: str = "okapi"  # okapi = rank-bm25's BM25Okapi scores; lucene = Lucene/Anserini's
    index: str = "exact"  # dense index: exact inner product, or hnsw (approximate; its recall is reported)
    hnsw_m: int = 32  # hnsw: graph neighbours per node
    hnsw_ef: int = 128  # hnsw: search breadth (higher = better recall, slower)
    hnsw_ef_construction: int = 200

    def __post_init__(self) -> None:
        from rag_bench.index.analyzers import ANALYZERS
        from rag_bench.index.bm25 import VARIANTS

        _one_of("retrieval.bm25_variant", self.bm25_variant, VARIANTS)
        _one_of("retrieval.index", self.index, ("exact", "hnsw"))

        _one_of("retrieval.mode", self.mode, RETRIEVAL_MODES)
        _one_of("retrieval.analyzer", self.analyzer, sorted(ANALYZERS))
        if self.depth < 1:
            raise ConfigError(f"retrieval.depth ({self.depth}) must be at least 1")
        if self.k_rrf < 0:
            raise ConfigError(f"retrieval.k_rrf ({self.k_rrf}) must not be negative")
        if len(self.weights) != 2 or min(self.weights) < 0:
            raise ConfigError(
                f"retrieval.weights ({list(self.weights)}) must be two non-negative numbers [bm25, dense]"
            )


@dataclass
class Config:
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
    chunker: Any = MISSING  # a chunker's settings (chunk/registry.py)
    embedder: Any = MISSING  # an embedder's settings (embed/registry.py)
    retrieval: RetrievalConfig = field(default_factory=RetrievalConfig)
    reranker: Any = MISSING  # a reranker's settings (rerank/registry.py)
    ks: list[int] = field(default_factory=lambda: [1, 3, 5, 10, 20])
    tau: float = 0.5  # chunk hits span when overlap >= tau * min(len(chunk), len(span))
    cache_dir: str | None = None  # None = $RAG_BENCH_CACHE or the user cache folder
    seed: int = 0  # bootstrap seed
    bootstrap: int = 1000  # bootstrap resamples for confidence intervals
    objective: str = "ndcg@10"  # the metric a run returns to Hydra sweepers (Optuna maximises it)
    budgets: list[int] = field(default_factory=lambda: [1000, 2000, 4000])  # context budgets in characters

    def __post_init__(self) -> None:
        from rag_bench.score.names import parse_metric

        # built in Python rather than composed by Hydra: an unset group takes configs/config.yaml's choice
        for group, name in DEFAULT_CHOICES.items():
            if getattr(self, group) == MISSING:
                setattr(self, group, GROUPS[group][name].schema())
        parse_metric(self.objective)
        if not self.ks or min(self.ks) < 1:
            raise ConfigError(f"ks ({list(self.ks)}) must be a non-empty list of positive cut-offs")
        if min(self.budgets, default=1) < 1:
            raise ConfigError(f"budgets ({list(self.budgets)}) must be positive character counts")
        if not 0 <= self.tau <= 1:
            raise ConfigError(f"tau ({self.tau}) must lie between 0 and 1")
        self.ks = sorted(set(self.ks))


def register() -> None:
    """Store the top-level schema as ``rag_bench_schema`` and each option's as ``schema/<group>/<name>``."""
    store = ConfigStore.instance()
    store.store(name="rag_bench_schema", node=Config)
    for group, entries in GROUPS.items():
        for name, entry in entries.items():
            store.store(group=f"schema/{group}", name=name, node=entry.schema)


def explain_unknown_key(message: str) -> str:
    """Hydra's "Key 'x' not in 'FixedConfig'" as "chunker.x is not a setting of chunker=fixed; its settings are ..."."""
    found = re.search(r"Key '([^']+)' not in '([^']+)'", message)
    if found is None:
        return message
    key, schema = found.groups()
    for group, entries in GROUPS.items():
        for name, entry in entries.items():
            if entry.schema.__name__ == schema:
                return not_a_setting(group, name, key, [f.name for f in fields(entry.schema)])
    return message


def validate(cfg: DictConfig) -> Config:
    """The composed Hydra config as checked dataclasses; ConfigError on any invalid value."""
    try:
        return OmegaConf.to_object(cfg)
    except OmegaConfBaseException as exc:
        cause = exc.__cause__ if isinstance(exc.__cause__, ConfigError) else None
        if cause is not None:
            raise cause from None
        raise ConfigError(str(exc).splitlines()[0]) from None
