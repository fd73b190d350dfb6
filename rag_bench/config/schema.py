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
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING, DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from rag_bench.chunk.registry import CHUNKERS
from rag_bench.core.errors import ConfigError
from rag_bench.core.options import not_a_setting
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.index.registry import VECTOR_INDEXES
from rag_bench.rerank.registry import RERANKERS
from rag_bench.retrieve.registry import entries as retrieval_entries

DEFAULT_CHOICES = {"chunker": "recursive", "embedder": "local", "retrieval": "hybrid", "reranker": "none"}
NAME_KEYS = {"chunker": "name", "embedder": "name", "retrieval": "mode", "reranker": "name"}


def objective_name(config: Config) -> str:
    """The metric returned to Hydra's sweepers: ``objective`` when set (it must be measured), else ndcg@10,
    or ndcg at the largest cut-off when 10 is not in ``ks``."""
    if config.objective is not None:
        return config.objective
    return "ndcg@10" if 10 in config.ks else f"ndcg@{max(config.ks)}"


def groups() -> dict[str, dict]:
    """Each config group's options (name -> entry with a ``schema``), the nested dense-index group included."""
    return {
        "chunker": CHUNKERS,
        "embedder": EMBEDDERS,
        "retrieval": retrieval_entries(),
        "retrieval/index": VECTOR_INDEXES,
        "reranker": RERANKERS,
    }


DEFAULT_DATASET = "kestrel-kb"


@dataclass
class DatasetConfig:
    name: str = DEFAULT_DATASET  # a bundled dataset under datasets/; with path, the label of that dataset
    path: str | None = None  # any folder in the native format; overrides name

    @property
    def label(self) -> str:
        """The name runs report: ``name``, or for a ``path`` dataset its folder's name unless ``name`` was set."""
        if self.path and self.name == DEFAULT_DATASET:
            return Path(self.path).expanduser().resolve().name
        return self.name


@dataclass
class Config:
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
    chunker: Any = MISSING  # a chunker's settings (chunk/registry.py)
    embedder: Any = MISSING  # an embedder's settings (embed/registry.py)
    retrieval: Any = MISSING  # a retriever's settings (retrieve/registry.py)
    reranker: Any = MISSING  # a reranker's settings (rerank/registry.py)
    ks: list[int] = field(default_factory=lambda: [1, 3, 5, 10, 20])
    tau: float = 0.5  # chunk hits span when overlap >= tau * min(len(chunk), len(span))
    cache_dir: str | None = None  # None = $RAG_BENCH_CACHE or the user cache folder
    seed: int = 0  # bootstrap seed
    bootstrap: int = 1000  # bootstrap resamples for confidence intervals (at least 1)
    objective: str | None = None  # the metric a run returns to Hydra sweepers; null = ndcg@10 (see objective_name)
    budgets: list[int] = field(default_factory=lambda: [1000, 2000, 4000])  # context budgets in characters
    report_k: int = 10  # cut-off of the failure classes in report.html and per_question.csv
    quiet: bool = False  # no progress output (also RAG_BENCH_QUIET=1 or TQDM_DISABLE=1; rag_bench/core/progress.py)

    def __post_init__(self) -> None:
        from rag_bench.score.names import parse_metric

        # built in Python rather than composed by Hydra: an unset group takes configs/config.yaml's choice
        options = groups()
        for group, name in DEFAULT_CHOICES.items():
            if getattr(self, group) == MISSING:
                setattr(self, group, options[group][name].schema())
        if self.objective is not None:
            parse_metric(self.objective)
        if not self.ks or min(self.ks) < 1:
            raise ConfigError(f"ks ({list(self.ks)}) must be a non-empty list of positive cut-offs")
        if min(self.budgets, default=1) < 1:
            raise ConfigError(f"budgets ({list(self.budgets)}) must be positive character counts")
        if not 0 <= self.tau <= 1:
            raise ConfigError(f"tau ({self.tau}) must lie between 0 and 1")
        if self.bootstrap < 1:
            raise ConfigError(
                f"bootstrap ({self.bootstrap}) must be at least 1 resample; 1000 (the default) gives stable intervals"
            )
        if self.report_k < 1:
            raise ConfigError(f"report_k ({self.report_k}) must be at least 1, e.g. 10")
        self.ks = sorted(set(self.ks))


def register() -> None:
    """Store the top-level schema as ``rag_bench_schema`` and each option's as ``schema/<group>/<name>``."""
    store = ConfigStore.instance()
    store.store(name="rag_bench_schema", node=Config)
    for group, options in groups().items():
        for name, entry in options.items():
            store.store(group=f"schema/{group}", name=name, node=entry.schema)
    from rag_bench.launch.presets import register as register_launchers  # cluster launcher presets

    register_launchers()


def explain_unknown_key(message: str, overrides: Sequence[str] = (), extra: dict | None = None) -> str:
    """Hydra's "Key 'x' not in 'FixedConfig'" as "chunker.x is not a setting of chunker=fixed; its settings are ...".

    Also a nested group the chosen option lacks (``retrieval=bm25 retrieval.index=hnsw``). ``extra``: a
    verb's own groups ({group: {name: entry}}) besides the run's.
    """
    known = {**groups(), **(extra or {})}
    nested = re.search(r"Could not override '(\w+)/(\w+)'\. No match in the defaults list", message)
    if nested is not None:
        parent, key = nested.groups()
        chosen = [o.partition("=")[2] for o in overrides if o.partition("=")[0] == parent]
        name = chosen[-1] if chosen else DEFAULT_CHOICES.get(parent)
        entry = known.get(parent, {}).get(name)
        if entry is not None:
            return not_a_setting(parent, name, key, [f.name for f in fields(entry.schema)])
    found = re.search(r"Key '([^']+)' not in '([^']+)'", message)
    if found is None:
        return message
    key, schema = found.groups()
    for group, options in known.items():
        for name, entry in options.items():
            if entry.schema.__name__ == schema:
                return not_a_setting(group.replace("/", "."), name, key, [f.name for f in fields(entry.schema)])
    return message


def validate(cfg: DictConfig) -> Config:
    """The composed Hydra config as checked dataclasses; ConfigError on any invalid value."""
    try:
        config = OmegaConf.to_object(cfg)
    except OmegaConfBaseException as exc:
        cause = exc.__cause__ if isinstance(exc.__cause__, ConfigError) else None
        if cause is not None:
            raise cause from None
        raise ConfigError(str(exc).splitlines()[0]) from None
    check_choices(config)
    if isinstance(config, Config):
        check_cut_offs(config)
    return config


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


def check_choices(config) -> None:
    """Each group's name key must be the chosen option's own (``retrieval=bm25 retrieval.mode=dense`` is an error)."""
    options = groups()
    for group, key in NAME_KEYS.items():
        settings = getattr(config, group, None)  # other verbs' settings hold some groups only
        if settings is None:
            continue
        value = getattr(settings, key)
        own = type(settings).__dataclass_fields__[key].default
        if value != own:
            raise ConfigError(
                f"{group}.{key} ({value!r}) must be one of: {', '.join(options[group])}; "
                f"choose another option with {group}=<{key}> (the chosen one is {group}={own})"
            )
