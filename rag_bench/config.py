"""Configuration schemas: dataclasses registered in Hydra's ConfigStore.

Values live in YAML under ``configs/`` (one group per stage). OmegaConf rejects
unknown keys and ill-typed values while composing; ``validate`` turns the composed
config into these dataclasses, whose ``__post_init__`` checks the rest (overlap below
size, known names) before any work starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hydra.core.config_store import ConfigStore
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from rag_bench.chunk.base import EMBEDDING_STRATEGIES, STRATEGIES, resolve_overlap
from rag_bench.chunk.prefix import PREFIXES
from rag_bench.chunk.units import UNIT_NAMES
from rag_bench.errors import ConfigError

RETRIEVAL_MODES = ("bm25", "dense", "hybrid")


def _one_of(key: str, value: object, allowed: tuple[str, ...] | list[str]) -> None:
    if value not in allowed:
        raise ConfigError(f"{key} ({value!r}) must be one of: {', '.join(allowed)}")


@dataclass
class DatasetConfig:
    name: str = "annual-report"  # a bundled dataset under datasets/
    path: str | None = None  # any folder in the native format; overrides name


@dataclass
class ChunkerConfig:
    name: str = "recursive"
    size: int = 800
    overlap: float = 0.0  # units, or a fraction of size when below 1
    unit: str = "chars"
    prefix: str = "none"
    contexts: str | None = None  # prefix=contexts: the file `rag-bench contextualize` wrote
    max_size: int | None = None  # semantic: most units in a chunk; null = chunker.size
    threshold_percentile: float = 5.0  # semantic: cut where neighbour similarity is below this percentile
    window: int = 1  # semantic: sentences embedded on each side of a sentence
    piece_size: int = 50  # cluster: units per piece that the dynamic programme groups
    manifest: str | None = None  # given: chunk manifest; null = chunks.jsonl in the dataset folder

    def __post_init__(self) -> None:
        _one_of("chunker.name", self.name, sorted([*STRATEGIES, *EMBEDDING_STRATEGIES, "given"]))
        _one_of("chunker.unit", self.unit, UNIT_NAMES)
        _one_of("chunker.prefix", self.prefix, PREFIXES)
        floor = 3 if self.unit == "tokens" else 1  # a token window also holds [CLS] and [SEP]
        if self.size < floor:
            raise ConfigError(f"chunker.size ({self.size}) must be at least {floor}")
        if self.overlap < 0:
            raise ConfigError(f"chunker.overlap ({self.overlap}) must not be negative")
        if resolve_overlap(self.size, self.overlap) >= self.size:
            raise ConfigError(
                f"chunker.overlap ({self.overlap:g}) must be smaller than chunker.size ({self.size}); "
                "give units below the size or a fraction below 1"
            )
        if self.prefix == "contexts" and not self.contexts:
            raise ConfigError(
                "chunker.prefix=contexts needs chunker.contexts=<file>; write one with rag-bench contextualize"
            )
        self._check_embedding_strategy(floor)

    def _check_embedding_strategy(self, floor: int) -> None:
        if not 0 <= self.threshold_percentile <= 100:
            raise ConfigError(f"chunker.threshold_percentile ({self.threshold_percentile}) must lie between 0 and 100")
        if self.window < 0:
            raise ConfigError(f"chunker.window ({self.window}) must not be negative")
        if self.max_size is not None and self.max_size < floor:
            raise ConfigError(f"chunker.max_size ({self.max_size}) must be at least {floor}, or null for chunker.size")
        if not floor <= self.piece_size <= self.size and self.name == "cluster":
            raise ConfigError(
                f"chunker.piece_size ({self.piece_size}) must lie between {floor} and chunker.size ({self.size})"
            )
        if self.name in EMBEDDING_STRATEGIES and self.overlap:
            raise ConfigError(
                f"chunker.overlap ({self.overlap:g}) must be 0 for chunker={self.name}: its chunks never overlap"
            )

    @property
    def overlap_units(self) -> int:
        return resolve_overlap(self.size, self.overlap)


@dataclass
class EmbedderConfig:
    name: str = "local"
    model: str | None = None
    dimension: int | None = None  # None = the model's native dimension
    base_url: str | None = None
    # API embedders (voyage) only; rag_bench/services.py says what each does
    batch_size: int = 128  # texts per request (the Voyage API takes at most 1000)
    max_tokens_per_batch: int | None = None  # None = the model's documented limit per request
    concurrency: int = 4  # requests in flight at once
    max_retries: int = 5  # retries of a request after a 429, 5xx, timeout or dropped connection
    backoff_s: float = 1.0  # first retry waits about this long, doubling up to 30 s
    timeout_s: float = 60.0  # per request
    max_total_s: float = 300.0  # per request, retries and waits included
    price_per_million: float | None = None  # USD per million tokens; None = configs/prices.yaml

    def __post_init__(self) -> None:
        from rag_bench.embed.registry import EMBEDDERS
        from rag_bench.services import check_settings

        _one_of("embedder.name", self.name, sorted(EMBEDDERS))
        if self.dimension is not None and self.dimension < 1:
            raise ConfigError(f"embedder.dimension ({self.dimension}) must be positive, or null for native")
        check_settings("embedder", self)


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
class RerankerConfig:
    name: str = "none"
    depth: int = 20  # fused candidates sent to the reranker
    keep: int | None = None  # rank cut-off after reranking; null = keep every candidate
    model: str | None = None
    base_url: str | None = None
    # API rerankers (voyage) only; rag_bench/services.py says what each does
    concurrency: int = 4  # questions in flight at once
    max_retries: int = 5
    backoff_s: float = 1.0
    timeout_s: float = 60.0
    max_total_s: float = 300.0
    price_per_million: float | None = None  # USD per million tokens; None = configs/prices.yaml

    def __post_init__(self) -> None:
        from rag_bench.rerank.registry import RERANKERS
        from rag_bench.services import check_settings

        _one_of("reranker.name", self.name, sorted(RERANKERS))
        if self.depth < 1:
            raise ConfigError(f"reranker.depth ({self.depth}) must be at least 1")
        if self.keep is not None and self.keep < 1:
            raise ConfigError(f"reranker.keep ({self.keep}) must be at least 1, or null to keep every candidate")
        check_settings("reranker", self)


@dataclass
class Config:
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
    chunker: ChunkerConfig = field(default_factory=ChunkerConfig)
    embedder: EmbedderConfig = field(default_factory=EmbedderConfig)
    retrieval: RetrievalConfig = field(default_factory=RetrievalConfig)
    reranker: RerankerConfig = field(default_factory=RerankerConfig)
    ks: list[int] = field(default_factory=lambda: [1, 3, 5, 10, 20])
    tau: float = 0.5  # chunk hits span when overlap >= tau * min(len(chunk), len(span))
    cache_dir: str | None = None  # None = $RAG_BENCH_CACHE or the user cache folder
    seed: int = 0  # bootstrap seed
    bootstrap: int = 1000  # bootstrap resamples for confidence intervals
    objective: str = "ndcg@10"  # the metric a run returns to Hydra sweepers (Optuna maximises it)
    budgets: list[int] = field(default_factory=lambda: [1000, 2000, 4000])  # context budgets in characters

    def __post_init__(self) -> None:
        from rag_bench.score.names import parse_metric

        parse_metric(self.objective)
        if not self.ks or min(self.ks) < 1:
            raise ConfigError(f"ks ({list(self.ks)}) must be a non-empty list of positive cut-offs")
        if min(self.budgets, default=1) < 1:
            raise ConfigError(f"budgets ({list(self.budgets)}) must be positive character counts")
        if not 0 <= self.tau <= 1:
            raise ConfigError(f"tau ({self.tau}) must lie between 0 and 1")
        self.ks = sorted(set(self.ks))


def register() -> None:
    """Make the schema known to Hydra as ``rag_bench_schema`` (used by configs/config.yaml)."""
    ConfigStore.instance().store(name="rag_bench_schema", node=Config)
    from rag_bench.launch.presets import register as register_launchers  # cluster launcher presets

    register_launchers()


def validate(cfg: DictConfig) -> Config:
    """The composed Hydra config as checked dataclasses; ConfigError on any invalid value."""
    try:
        return OmegaConf.to_object(cfg)
    except OmegaConfBaseException as exc:
        cause = exc.__cause__ if isinstance(exc.__cause__, ConfigError) else None
        if cause is not None:
            raise cause from None
        raise ConfigError(str(exc).splitlines()[0]) from None
