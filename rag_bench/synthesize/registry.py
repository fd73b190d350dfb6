"""Candidate generators by config name (``generator=replay|anthropic``), and the verb's Hydra composition."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hydra.core.config_store import ConfigStore

from rag_bench.config.schema import register as register_stages
from rag_bench.synthesize.anthropic import AnthropicCandidates
from rag_bench.synthesize.candidates import ReplayCandidates
from rag_bench.synthesize.settings import AnthropicSynthConfig, ReplaySynthConfig, SynthesizeConfig

SCHEMA_NAME = "rag_bench_synthesize_schema"


@dataclass(frozen=True)
class GeneratorEntry:
    schema: type
    build: Callable  # (cfg, documents, cache) -> candidates(documents, bar), settings, usage, cost_usd, close()


GENERATORS: dict[str, GeneratorEntry] = {
    "replay": GeneratorEntry(ReplaySynthConfig, ReplayCandidates),
    "anthropic": GeneratorEntry(AnthropicSynthConfig, AnthropicCandidates),
}


def register() -> None:
    """Store the verb's schema (configs/synthesize/config.yaml) and its generators' (schema/synthesize/generator/)."""
    register_stages()  # the dataset, chunker and embedder schemas
    store = ConfigStore.instance()
    store.store(name=SCHEMA_NAME, node=SynthesizeConfig)
    for name, entry in GENERATORS.items():
        store.store(group="schema/synthesize/generator", name=name, node=entry.schema)


def compose_settings(overrides: Sequence[str] = ()) -> SynthesizeConfig:
    """The checked settings from ``configs/synthesize/config.yaml``, the main groups and ``overrides``."""
    from rag_bench.config.compose import compose
    from rag_bench.config.schema import validate
    from rag_bench.core.paths import project_folder

    register()
    configs = project_folder("configs")
    cfg = compose(
        configs / "synthesize", overrides, "synthesize settings", search=configs, groups={"generator": GENERATORS}
    )
    settings = validate(cfg)
    settings.generator.require()
    return settings
