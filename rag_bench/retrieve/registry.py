"""Retrievers by config name (``retrieval=bm25|dense|hybrid``): each one's settings schema and builder.

A retriever's own settings are a dataclass mixed into ``RetrievalConfig`` (``BM25Settings`` +
``RetrievalConfig`` = ``BM25Config``). ``retrieval=hybrid`` fuses the retrievers that
``retrieval.fuse`` names; its schema is the fusion settings plus every fusable retriever's own
settings, flat (``retrieval.analyzer``, ``retrieval.index``), built here from the entries, so a
retriever registered here can be fused with no other change.

Adding a retriever: a module with its settings dataclass and ``build(cfg, resources) -> Retriever``,
one entry here, and ``configs/retrieval/<name>.yaml``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, make_dataclass

from rag_bench.core.errors import ConfigError
from rag_bench.core.options import settings_of
from rag_bench.retrieve import bm25, dense
from rag_bench.retrieve.base import RetrievalConfig, Retriever
from rag_bench.retrieve.cached import cached
from rag_bench.retrieve.external import function, langchain, runfile, service
from rag_bench.retrieve.filtering import with_filter_mode
from rag_bench.retrieve.fusion.retriever import FusionRetriever, FusionSettings
from rag_bench.retrieve.resources import Resources


@dataclass(frozen=True)
class RetrieverEntry:
    schema: type[RetrievalConfig]
    build: Callable[[RetrievalConfig, Resources], Retriever]
    settings: type | None = None  # its own settings mixin; None: it cannot be fused (hybrid itself)


RETRIEVERS: dict[str, RetrieverEntry] = {
    "bm25": RetrieverEntry(bm25.BM25Config, bm25.build, bm25.BM25Settings),
    "dense": RetrieverEntry(dense.DenseConfig, dense.build, dense.DenseSettings),
    "external": RetrieverEntry(runfile.ExternalConfig, runfile.build, runfile.ExternalSettings),
    "http": RetrieverEntry(service.HttpConfig, service.build, service.HttpSettings),
    "python": RetrieverEntry(function.PythonConfig, function.build, function.TargetSettings),
    "langchain": RetrieverEntry(langchain.LangChainConfig, langchain.build, function.TargetSettings),
}
_HYBRID: dict[tuple, type] = {}


def hybrid_schema() -> type[RetrievalConfig]:
    """``HybridConfig``: mode, depth, the fusion settings, then each fusable retriever's settings, flat."""
    # one mixin may serve several retrievers (python and langchain share retrieval.target)
    mixins = tuple(dict.fromkeys(e.settings for e in RETRIEVERS.values() if e.settings is not None))
    if mixins not in _HYBRID:
        names = [f.name for mixin in mixins for f in fields(mixin)]
        clash = sorted({n for n in names if names.count(n) > 1})
        if clash:
            raise TypeError(f"retrievers' settings share keys {clash}: each key of retrieval=hybrid must be unique")
        schema = make_dataclass(
            "HybridConfig",
            [("mode", str, field(default="hybrid"))],
            bases=(*reversed(mixins), FusionSettings, RetrievalConfig),
        )
        schema.__module__ = __name__
        _HYBRID[mixins] = schema
    return _HYBRID[mixins]


def __getattr__(name: str) -> type:
    """``registry.HybridConfig`` by name, so pickles (submitit jobs) refer to the class instead of copying it.

    cloudpickle < 3 (which hydra-ray-launcher needs) copies a class it cannot import by value, and a
    dataclass copied so loses its fields: ``asdict`` of the job's config gave ``retrieval: {}``.
    """
    if name == "HybridConfig":
        return hybrid_schema()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _build_hybrid(cfg, resources: Resources) -> Retriever:
    fusable = [name for name, entry in RETRIEVERS.items() if entry.settings is not None]
    unknown = [name for name in cfg.fuse if name not in fusable]
    if unknown:
        raise ConfigError(f"retrieval.fuse names {unknown[0]!r}; it must name retrievers among: {', '.join(fusable)}")
    children = [build_retriever(child_config(cfg, name), resources) for name in cfg.fuse]
    return FusionRetriever(children, cfg.weights, cfg.k_rrf)


def child_config(cfg: RetrievalConfig, name: str) -> RetrievalConfig:
    """The settings of fused retriever ``name``: its own keys taken from the hybrid settings ``cfg``."""
    schema = RETRIEVERS[name].schema
    values = {f.name: getattr(cfg, f.name) for f in fields(schema) if f.name != "mode"}
    return schema(**values)


def entries() -> dict[str, RetrieverEntry]:
    """Every retrieval option, ``hybrid`` (over the fusable ones) included."""
    return {**RETRIEVERS, "hybrid": RetrieverEntry(hybrid_schema(), _build_hybrid)}


def retrieval_config(mode: str, **settings) -> RetrievalConfig:
    """The checked settings of retrieval ``mode`` (its schema's defaults, then ``settings``)."""
    return settings_of("retrieval", mode, entries(), settings, key="mode")


def build_retriever(cfg: RetrievalConfig, resources: Resources) -> Retriever:
    """The retriever ``cfg`` describes; lists that can be cached are read from / written to the cache.

    Each first-stage retriever meets questions' filters as ``retrieval.filter_mode`` says (``filtering.py``).
    """
    retriever = entries()[cfg.mode].build(cfg, resources)
    found = cached(retriever, resources.workspace.cache, resources.corpus)
    if cfg.mode not in RETRIEVERS:  # a fusion: its children meet the filters
        return found
    applies = getattr(retriever, "applies_filters", False)
    return with_filter_mode(found, cfg.filter_mode, resources.corpus, applies)


def meeting_filters(retriever: Retriever, cfg: RetrievalConfig, resources: Resources) -> Retriever:
    """A retriever built by the caller (``rag_bench.evaluate``), meeting questions' filters as ``cfg`` says."""
    applies = getattr(retriever, "applies_filters", False)
    return with_filter_mode(retriever, cfg.filter_mode, resources.corpus, applies)
