"""Settings of ``rag-bench synthesize``: dataclasses composed by Hydra from ``configs/synthesize/``.

The dataset, chunker and embedder groups are the main ones: the chunker cuts the corpus for
the BM25-alone check, the embedder (query mode, through the vector cache) compares questions
for near-duplicates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING
from omegaconf.errors import OmegaConfBaseException

from rag_bench.config import DatasetConfig
from rag_bench.config import register as register_stages
from rag_bench.errors import ConfigError

SCHEMA_NAME = "rag_bench_synthesize_schema"


@dataclass
class SynthGeneratorConfig:
    name: str = "replay"
    path: str | None = None  # replay: JSONL of {doc_id, question, excerpt, answer?, category?}
    model: str | None = None  # anthropic: the model id
    max_tokens: int = 1024  # anthropic: reply limit per request
    per_request: int = 3  # anthropic: questions asked for per (document, category)
    categories: dict[str, str] = field(default_factory=dict)  # anthropic: category -> what to ask for
    base_url: str | None = None  # anthropic: e.g. a local fake server
    max_retries: int = 2  # anthropic: SDK retries of 408/409/429/5xx and connection errors
    timeout: float = 60.0  # anthropic: seconds per request

    def require(self) -> None:
        """What a run needs beyond valid values (the schema's defaults are a valid config without them)."""
        if self.name == "replay" and not self.path:
            raise ConfigError("generator=replay needs generator.path=<file of {doc_id, question, excerpt, answer?}>")
        if self.name == "anthropic" and not self.categories:
            raise ConfigError("generator.categories is empty; give at least one category: instruction")

    def __post_init__(self) -> None:
        from rag_bench.synthesize.registry import GENERATORS

        if self.name not in GENERATORS:
            raise ConfigError(f"generator.name ({self.name!r}) must be one of: {', '.join(sorted(GENERATORS))}")
        for name, low in (("max_tokens", 1), ("per_request", 1), ("max_retries", 0)):
            if getattr(self, name) < low:
                raise ConfigError(f"generator.{name} ({getattr(self, name)}) must be at least {low}")
        if self.timeout <= 0:
            raise ConfigError(f"generator.timeout ({self.timeout}) must be positive (seconds)")


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
    generator: SynthGeneratorConfig = field(default_factory=SynthGeneratorConfig)
    checks: ChecksConfig = field(default_factory=ChecksConfig)
    out: str | None = None  # null = results/synthesize/<dataset>-<generator>.jsonl
    cache_dir: str | None = None  # null = $RAG_BENCH_CACHE or the user cache folder


def register() -> None:
    """Make the schema known to Hydra as ``rag_bench_synthesize_schema`` (configs/synthesize/config.yaml)."""
    register_stages()
    ConfigStore.instance().store(name=SCHEMA_NAME, node=SynthesizeConfig)


def compose_settings(overrides: Sequence[str] = ()) -> SynthesizeConfig:
    """The checked settings from ``configs/synthesize/config.yaml``, the main groups and ``overrides``."""
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException

    from rag_bench.config import explain_unknown_key, validate
    from rag_bench.data.bundled import project_folder

    register()
    configs = project_folder("configs")
    search = f"hydra.searchpath=[file://{configs.as_posix()}]"  # the dataset, chunker and embedder groups
    try:
        with initialize_config_dir(config_dir=str(configs / "synthesize"), version_base="1.3"):
            cfg = compose(config_name="config", overrides=[*overrides, search])
    except (HydraException, OmegaConfBaseException) as exc:
        lines = explain_unknown_key(str(exc), overrides).split("Config search path")[0].strip().splitlines()
        options = [line.strip() for line in lines if line.startswith("\t")]
        detail = lines[0] + (f" (options: {', '.join(options)})" if options else "")
        raise ConfigError(
            f"synthesize settings: {detail}; keys: configs/synthesize/, rag_bench/synthesize/config.py"
        ) from None
    settings = validate(cfg)
    settings.generator.require()
    return settings
