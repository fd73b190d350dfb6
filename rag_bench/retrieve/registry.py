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

from dataclasses import field, fields, make_dataclass

from rag_bench.core.errors import ConfigError
from rag_bench.core.options import Option, Options
from rag_bench.retrieve.base import RetrievalConfig, Retriever
from rag_bench.retrieve.cached import cached
from rag_bench.retrieve.filtering import with_filter_mode
from rag_bench.retrieve.fusion.methods import Fusion
from rag_bench.retrieve.fusion.retriever import FusionRetriever, FusionSettings
from rag_bench.retrieve.resources import Resources


class RetrieverOptions(Options):
    """The retrievers; each one built goes through the candidate cache and meets questions' filters as
    ``retrieval.filter_mode`` says (``filtering.py``; a fusion's children meet them, not the fusion)."""

    def build(self, cfg: RetrievalConfig, resources: Resources) -> Retriever:
        retriever = super().build(cfg, resources)
        found = cached(retriever, resources.workspace.cache, resources.corpus)
        if self[cfg.mode].mixin is None:  # a fusion: its children meet the filters
            return found
        applies = getattr(retriever, "applies_filters", False)
        return with_filter_mode(found, cfg.filter_mode, resources.corpus, applies)


_HYBRID: dict[tuple, type] = {}


def hybrid_schema(retrievers: Options) -> type[RetrievalConfig]:
    """``HybridConfig``: mode, depth, the fusion settings, then each fusable retriever's settings, flat."""
    # one mixin may serve several retrievers (python and langchain share retrieval.target)
    mixins = tuple(dict.fromkeys(o.mixin for o in retrievers.own().values() if o.mixin is not None))
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


def hybrid(retrievers: Options) -> Option:
    """``retrieval=hybrid``: the fusion of the retrievers ``retrieval.fuse`` names, over every fusable one's keys."""

    def build(cfg, resources: Resources) -> Retriever:
        fusable = [name for name, option in retrievers.own().items() if option.mixin is not None]
        unknown = [name for name in cfg.fuse if name not in fusable]
        if unknown:
            raise ConfigError(
                f"retrieval.fuse names {unknown[0]!r}; it must name retrievers among: {', '.join(fusable)}"
            )
        children = [retrievers.build(child_config(retrievers, cfg, name), resources) for name in cfg.fuse]
        return FusionRetriever(children, cfg.weights, cfg.k_rrf, Fusion(cfg.fusion, cfg.k_rrf, cfg.normalize))

    return Option(hybrid_schema(retrievers), build)


_R, _X = "rag_bench.retrieve", "rag_bench.retrieve.external"  # where the retrievers' modules live
RETRIEVERS = RetrieverOptions(
    "retrieval",
    key="mode",
    default="hybrid",
    options={
        "bm25": Option(f"{_R}.bm25:BM25Config", f"{_R}.bm25:build", f"{_R}.bm25:BM25Settings"),
        "dense": Option(f"{_R}.dense:DenseConfig", f"{_R}.dense:build", f"{_R}.dense:DenseSettings"),
        "external": Option(f"{_X}.runfile:ExternalConfig", f"{_X}.runfile:build", f"{_X}.runfile:ExternalSettings"),
        "http": Option(f"{_X}.service:HttpConfig", f"{_X}.service:build", f"{_X}.service:HttpSettings"),
        "python": Option(f"{_X}.function:PythonConfig", f"{_X}.function:build", f"{_X}.function:TargetSettings"),
        "langchain": Option(
            f"{_X}.langchain:LangChainConfig", f"{_X}.langchain:build", f"{_X}.function:TargetSettings"
        ),
    },
    derived={"hybrid": hybrid},
)


def __getattr__(name: str) -> type:
    """``registry.HybridConfig`` by name, so pickles (submitit jobs) refer to the class instead of copying it.

    cloudpickle < 3 (which hydra-ray-launcher needs) copies a class it cannot import by value, and a
    dataclass copied so loses its fields: ``asdict`` of the job's config gave ``retrieval: {}``.
    """
    if name == "HybridConfig":
        return hybrid_schema(RETRIEVERS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def child_config(retrievers: Options, cfg: RetrievalConfig, name: str) -> RetrievalConfig:
    """The settings of fused retriever ``name``: its own keys taken from the hybrid settings ``cfg``."""
    schema = retrievers[name].schema
    values = {f.name: getattr(cfg, f.name) for f in fields(schema) if f.name != "mode"}
    return schema(**values)


def meeting_filters(retriever: Retriever, cfg: RetrievalConfig, resources: Resources) -> Retriever:
    """A retriever built by the caller (``rag_bench.evaluate``), meeting questions' filters as ``cfg`` says."""
    applies = getattr(retriever, "applies_filters", False)
    return with_filter_mode(retriever, cfg.filter_mode, resources.corpus, applies)
