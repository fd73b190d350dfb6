"""The run's configuration: the top-level schema, checked, and its registration with Hydra.

Values live in YAML under ``configs/`` (one group per stage, ``config/groups.py``); ``validate`` turns
the config Hydra composed into the dataclasses, whose ``__post_init__`` checks the values before any
work starts, then checks what no single group can: every cut-off reachable, each option's name its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from omegaconf import MISSING, DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from rag_bench.config.groups import RUN_GROUPS, STAGE_GROUPS, check_choices, register_groups
from rag_bench.core.errors import ConfigError
from rag_bench.core.limits import check_numbers
from rag_bench.core.options import fill_defaults
from rag_bench.data.dataset import DatasetConfig

SCHEMA_NAME = "rag_bench_schema"
MAX_BOOTSTRAP = 100_000  # resamples: each draws one index per question, so memory grows with both


def objective_name(config: Config) -> str:
    """The metric returned to Hydra's sweepers: ``objective`` when set (it must be measured), else ndcg@10,
    or ndcg at the largest cut-off when 10 is not in ``ks``."""
    if config.objective is not None:
        return config.objective
    return "ndcg@10" if 10 in config.ks else f"ndcg@{max(config.ks)}"


@dataclass
class BudgetConfig:
    """What a sweep may spend (``budget.usd``, ``budget.seconds``; null = no cap): a point whose planned cost or
    time would take the sweep past either is not run, nor any after it (``entry/planning.py``)."""

    usd: float | None = None  # estimated API cost of the whole sweep, in USD (configs/prices.yaml)
    seconds: float | None = None  # wall-clock seconds of the whole sweep

    def __post_init__(self) -> None:
        for key in ("usd", "seconds"):
            value = getattr(self, key)
            if value is not None and not (math.isfinite(value) and value >= 0):
                raise ConfigError(f"budget.{key} ({value}) must be a finite number >= 0, or null for no cap")

    @property
    def capped(self) -> bool:
        return self.usd is not None or self.seconds is not None


@dataclass
class Config:
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
    parser: Any = MISSING  # how files in docs/ become text, and the cleaning after (parse/registry.py PARSERS)
    chunker: Any = MISSING  # a chunker's settings (chunk/registry.py CHUNKERS)
    embedder: Any = MISSING  # an embedder's settings (embed/registry.py EMBEDDERS)
    retrieval: Any = MISSING  # a retriever's settings (retrieve/registry.py RETRIEVERS)
    expand: Any = MISSING  # what a hit returns: itself, its parent, a window, merged parents (retrieve/expand/)
    diversity: Any = MISSING  # MMR or near-duplicate collapse of the retrieved list (retrieve/diversity/)
    reranker: Any = MISSING  # a reranker's settings (rerank/registry.py RERANKERS)
    ks: list[int] = field(default_factory=lambda: [1, 3, 5, 10, 20])
    tau: float = 0.5  # chunk hits span when overlap >= tau * min(len(chunk), len(span))
    cache_dir: str | None = None  # None = $RAG_BENCH_CACHE or the user cache folder
    seed: int = 0  # bootstrap seed
    bootstrap: int = 1000  # bootstrap resamples for confidence intervals (at least 1)
    objective: str | None = None  # the metric a run returns to Hydra sweepers; null = ndcg@10 (see objective_name)
    budgets: list[int] = field(default_factory=lambda: [1000, 2000, 4000])  # context budgets in characters
    report_k: int = 10  # cut-off of the failure classes in report.html and per_question.csv
    quiet: bool = False  # no progress output (also RAG_BENCH_QUIET=1 or TQDM_DISABLE=1; rag_bench/core/progress.py)
    budget: BudgetConfig = field(default_factory=BudgetConfig)  # caps on a sweep's cost and time; changes no result

    def __post_init__(self) -> None:
        from rag_bench.score.names import parse_metric

        fill_defaults(self, STAGE_GROUPS)  # built in Python: an unset group takes its default option
        if self.objective is not None:
            parse_metric(self.objective)
        if not self.ks or min(self.ks) < 1:
            raise ConfigError(f"ks ({list(self.ks)}) must be a non-empty list of positive cut-offs")
        if min(self.budgets, default=1) < 1:
            raise ConfigError(f"budgets ({list(self.budgets)}) must be positive character counts")
        if not 0 <= self.tau <= 1:
            raise ConfigError(f"tau ({self.tau}) must lie between 0 and 1")
        if not 1 <= self.bootstrap <= MAX_BOOTSTRAP:
            raise ConfigError(
                f"bootstrap ({self.bootstrap}) must lie between 1 and {MAX_BOOTSTRAP} resamples; "
                "1000 (the default) gives stable intervals"
            )
        if self.report_k < 1:
            raise ConfigError(f"report_k ({self.report_k}) must be at least 1, e.g. 10")
        self.ks = sorted(set(self.ks))


def register() -> None:
    """Store the top-level schema as ``rag_bench_schema`` and each option's as ``schema/<group>/<name>``."""
    from hydra.core.config_store import ConfigStore

    from rag_bench.launch.presets import register as register_launchers  # cluster launcher presets

    ConfigStore.instance().store(name=SCHEMA_NAME, node=Config)
    register_groups(RUN_GROUPS)
    register_launchers()


def validate(cfg: DictConfig) -> Config:
    """The composed Hydra config as checked dataclasses; ConfigError on any invalid value.

    Every number is checked first (finite, within ``core.limits.LIMIT``), then each schema checks its own.
    """
    try:
        check_numbers(OmegaConf.to_container(cfg, resolve=True))
        config = OmegaConf.to_object(cfg)
    except OmegaConfBaseException as exc:
        cause = exc.__cause__ if isinstance(exc.__cause__, ConfigError) else None
        if cause is not None:
            raise cause from None
        raise ConfigError(str(exc).splitlines()[0]) from None
    check_choices(config)
    if isinstance(config, Config):
        check_cut_offs(config)
        check_parent_level(config)
    return config


def check_parent_level(config: Config) -> None:
    """``expand.level=chunk`` cuts parents with the run's chunker at ``expand.size``: it must be a sized chunker,
    and the parents larger than its chunks."""
    expand = config.expand
    if getattr(expand, "level", None) != "chunk":
        return
    size = getattr(config.chunker, "size", None)
    if size is None:
        raise ConfigError(
            f"expand.level=chunk: chunker={config.chunker.name} has no chunker.size, so it makes no parent chunks; "
            "use expand.level=section or expand.level=document"
        )
    if expand.size <= size:
        raise ConfigError(
            f"expand.size ({expand.size}) must exceed chunker.size ({size}): a parent chunk holds several chunks "
            f"(e.g. expand.size={4 * size})"
        )


def check_cut_offs(config: Config) -> None:
    """Every cut-off must be reachable: a metric at k beyond the candidates would be capped, silently.

    k <= retrieval.depth (each retriever returns depth candidates); reranker.keep >= k; and the
    reranker cannot rerank more candidates than retrieval can return.
    """
    top, depth = max(config.ks), config.retrieval.depth
    if top > depth:
        raise ConfigError(
            f"ks holds {top} but retrieval.depth is {depth}: metrics at k={top} would count only the {depth} "
            f"candidates each retriever returns; set retrieval.depth={top} or drop k > {depth} from ks"
        )
    rerank = config.reranker
    keep = getattr(rerank, "keep", None)
    if keep is not None and keep < top:
        raise ConfigError(
            f"ks holds {top} but reranker.keep is {keep}: metrics at k > {keep} would count only the kept "
            f"candidates; set ks to cut-offs up to {keep} (e.g. ks=[1,3,{keep}]) or reranker.keep=null"
        )
    widest = depth * len(getattr(config.retrieval, "fuse", [None]))
    rerank_depth = getattr(rerank, "depth", None)
    if rerank_depth is not None and rerank_depth > widest:
        raise ConfigError(
            f"reranker.depth ({rerank_depth}) exceeds the {widest} candidates retrieval can return "
            f"(retrieval.depth {depth}); set reranker.depth={widest} or raise retrieval.depth"
        )
