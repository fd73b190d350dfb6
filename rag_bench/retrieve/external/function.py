"""A retriever written in Python (``retrieval=python retrieval.target=package.module:function``).

The function gets ``(questions: list[str], depth: int)`` and returns, per question and in the same
order, a list of result objects as in ``results.py`` (offsets or text, best first). The Python API
(``rag_bench.evaluate``) wraps any callable of that shape the same way, and objects with a
``retrieve(queries, depth)`` method (rag-bench's ``Retriever`` protocol: ``Query`` objects carry
``.id`` and ``.text``; they may return ``Candidates`` or per-question result lists).

Filters: a function with a ``filters`` parameter applies questions' metadata filters itself, so
``retrieval.filter_mode=pre`` is open to it. It is called with ``filters=[...]``, one per question:
the question's filter object (keys sorted), or None. An object whose ``applies_filters`` is true
reads each ``Query.filter`` (``rag_bench.core.filters.Filter``: ``.source``, ``.matches(metadata)``).
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Dataset
from rag_bench.retrieve.base import Candidates, Query, RetrievalConfig
from rag_bench.retrieve.external.results import ResultReader, Where, to_candidates
from rag_bench.retrieve.resources import Resources


@dataclass
class TargetSettings:
    """The Python object a run calls, ``package.module:name`` (``retrieval=python`` and ``retrieval=langchain``)."""

    target: str | None = None

    def check(self) -> None:
        if self.target is not None and not _well_formed(self.target):
            raise ConfigError(
                f"retrieval.target ({self.target!r}) must be 'package.module:name', e.g. my_search.api:retrieve"
            )


@dataclass
class PythonConfig(TargetSettings, RetrievalConfig):
    mode: str = "python"
    # your system applies its own filters: its results are scored as returned, and leak@k says what got through
    filter_mode: str = "none"


def load_target(target: str | None, mode: str) -> object:
    """The object ``package.module:name`` names; the current folder is searched too. ConfigError if absent."""
    if target is None:
        raise ConfigError(f"retrieval={mode} needs retrieval.target=package.module:name")
    module_name, _, attribute = target.partition(":")
    try:
        module = _import(module_name)
    except ImportError as exc:
        raise ConfigError(
            f"retrieval.target ({target!r}): module {module_name!r} cannot be imported ({exc}); "
            "install it, run from the folder that holds it, or add its folder to PYTHONPATH"
        ) from None
    value: object = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise ConfigError(f"retrieval.target ({target!r}): {module_name} has no {attribute!r}")
        value = getattr(value, part)
    return value


def _import(name: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        here = os.getcwd()
        if exc.name != name.split(".")[0] or here in sys.path:
            raise
        sys.path.insert(0, here)  # `rag-bench` run from the user's project folder, as `python -m` would
        return importlib.import_module(name)


def _well_formed(target: str) -> bool:
    module, sep, attribute = target.partition(":")
    names = [*module.split("."), *attribute.split(".")]
    return bool(sep) and all(n.isidentifier() for n in names)


class FunctionRetriever:
    """Calls ``call(queries, depth)`` once for all questions and reads its per-question results."""

    def __init__(
        self,
        call: Callable[[Sequence[Query], int], object],
        source: str,
        dataset: Dataset,
        name: str = "python",
        applies_filters: bool = False,
    ) -> None:
        self.call, self.source, self.dataset, self.name = call, source, dataset, name
        self.applies_filters = applies_filters  # it applies each Query.filter: filter_mode=pre may use it

    def retrieve(self, queries: Sequence[Query], depth: int) -> Candidates:
        found = self.call(list(queries), depth)
        if isinstance(found, Candidates):
            return found
        where = Where(self.source)
        if not isinstance(found, list | tuple) or len(found) != len(queries):
            got = f"{len(found)} items" if isinstance(found, list | tuple) else type(found).__name__
            raise where.error(
                f"returned {got} for {len(queries)} questions",
                "return a list with one list of results per question, in question order",
            )
        reader = ResultReader({d.id: d for d in self.dataset.documents})
        rankings = [
            reader.ranking(list(r) if isinstance(r, tuple) else r, Where(self.source, question=q.id))
            for q, r in zip(queries, found, strict=True)
        ]
        return to_candidates(rankings, depth, reader.tally, {"source": self.source})


def from_function(function: Callable, source: str, dataset: Dataset) -> FunctionRetriever:
    """A retriever over ``function(questions: list[str], depth[, filters]) -> per-question result lists``."""
    if not takes_filters(function):
        return FunctionRetriever(lambda queries, depth: function([q.text for q in queries], depth), source, dataset)

    def call(queries: Sequence[Query], depth: int) -> object:
        filters = [None if q.filter is None else json.loads(q.filter.source) for q in queries]
        return function([q.text for q in queries], depth, filters=filters)

    return FunctionRetriever(call, source, dataset, applies_filters=True)


def takes_filters(function: Callable) -> bool:
    """Whether ``function`` has a parameter called ``filters`` (one filter object or None per question)."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        return False
    return "filters" in parameters and parameters["filters"].kind is not inspect.Parameter.POSITIONAL_ONLY


def build(cfg: TargetSettings, resources: Resources) -> FunctionRetriever:
    function = load_target(cfg.target, "python")
    if not callable(function):
        raise ConfigError(f"retrieval.target ({cfg.target!r}) is a {type(function).__name__}, not a function")
    return from_function(function, cfg.target, resources.dataset)
