"""Config groups and their options: one type for every group (chunker, embedder, retrieval, reranker, generator ...).

A config group (``chunker``) has options (``fixed``, ``recursive``, ...) chosen on the command line
(``chunker=fixed``). Each option is an ``Option``: its settings schema (a dataclass, beside the code
that builds it, whose name field's default is the option's name) and its builder. A group is an
``Options``: {name: Option} with what the group shares (its key, the field that names the option, its
default, where Hydra stores its schemas), and the operations every group shares:

    fixed = Option("rag_bench.chunk.fixed:FixedConfig", "rag_bench.chunk.fixed:build")  # imported on first use
    CHUNKERS = Options("chunker", default="recursive", options={"fixed": fixed, ...})
    CHUNKERS.settings("fixed", size=400)   # FixedConfig(size=400), checked; an unknown key is a ConfigError
    CHUNKERS.build(cfg, tools)             # the builder of the option cfg names: fixed.build(cfg, tools)
    CHUNKERS.schemas()                     # each schema, imported when Hydra loads schema/chunker/<name>

Adding an option is one module (schema and builder), one entry in its group's registry, and one YAML file.
A registry names its options' parts by where they live (``"module:name"``), so a run imports the modules of
the options it uses and no other (``python -X importtime -m rag_bench`` shows it).
A group whose building has one more step for every option (caching, a file every option reads) subclasses
``Options`` and extends ``build``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from dataclasses import fields
from importlib import import_module
from typing import Any

from omegaconf import MISSING

from rag_bench.core.errors import ConfigError
from rag_bench.core.limits import check_numbers


class Option:
    """One option of a config group: its settings schema and what builds it from those settings.

    Each part is the object itself or where it lives, ``"module:name"`` (``"rag_bench.chunk.fixed:build"``),
    imported on first use: a run imports the options it uses, not every option of every group.
    """

    __slots__ = ("_named", "_parts")

    def __init__(
        self, schema: type | str, build: Callable[..., Any] | str | None = None, mixin: type | str | None = None
    ) -> None:
        # schema: a dataclass; its ``key`` field (name, or mode) defaults to the option's name
        # build: (settings, *what the group passes) -> component; None: nothing to build
        # mixin: the option's own settings, for a group whose options combine (retrieval=hybrid)
        self._named = (schema, build, mixin)  # as given, kept (``where``)
        self._parts = [schema, build, mixin]  # each imported on first use

    def _part(self, index: int) -> Any:
        part = self._parts[index]
        if isinstance(part, str):
            module, _, name = part.partition(":")
            part = self._parts[index] = getattr(import_module(module), name)
        return part

    @property
    def schema(self) -> type:
        return self._part(0)

    @property
    def build(self) -> Callable[..., Any] | None:
        return self._part(1)

    @property
    def mixin(self) -> type | None:
        return self._part(2)

    @property
    def schema_name(self) -> str:
        """The schema's class name, without importing it (Hydra's messages name the class)."""
        part = self._named[0]
        return part.rpartition(":")[2] if isinstance(part, str) else part.__name__

    def where(self) -> tuple[str, ...] | None:
        """Where each part lives (``"module:name"``), imported or not; None when a part was given as an object."""
        named = [p for p in self._named if p is not None]
        return tuple(named) if all(isinstance(p, str) for p in named) else None


class Options(MutableMapping[str, Option]):
    """The options of one config group by name, with the group's metadata and shared operations."""

    def __init__(
        self,
        group: str,
        *,
        default: str | None,
        key: str = "name",
        path: str | None = None,
        options: Mapping[str, Option] | None = None,
        derived: Mapping[str, Callable[[Options], Option]] | None = None,
    ) -> None:
        self.group = group  # its key in the config and on the command line: chunker, retrieval.index
        self.default = default  # the option a config gets when none is chosen (configs/ names the same)
        self.key = key  # the settings field naming the option: name (mode for retrieval)
        self.path = path or group.replace(".", "/")  # Hydra's group: retrieval/index, synthesize/generator
        self._options = dict(options or {})
        self._derived = dict(derived or {})  # options made from the others when asked (retrieval=hybrid)

    def __getitem__(self, name: str) -> Option:
        if name in self._options:
            return self._options[name]
        if name in self._derived:
            return self._derived[name](self)
        raise KeyError(name)

    def __setitem__(self, name: str, option: Option) -> None:
        self._options[name] = option

    def __delitem__(self, name: str) -> None:
        del self._options[name]

    def __iter__(self) -> Iterator[str]:
        return iter([*self._options, *(n for n in self._derived if n not in self._options)])

    def __len__(self) -> int:
        return len(list(iter(self)))

    def own(self) -> dict[str, Option]:
        """The options registered one by one (without the derived ones)."""
        return dict(self._options)

    def settings(self, name: str, **values: object):
        """The checked settings of option ``name``: its schema's defaults, then ``values``.

        A name the group lacks, or a key the option does not have, is a ConfigError naming what it has.
        """
        if name not in self:
            raise ConfigError(f"{self.group}.{self.key} ({name!r}) must be one of: {', '.join(sorted(self))}")
        schema = self[name].schema
        known = [f.name for f in fields(schema)]
        unknown = [key for key in values if key not in known]
        if unknown:
            raise ConfigError(self.not_a_setting(name, unknown[0]))
        check_numbers(values, self.group)
        return schema(**values)

    def default_settings(self):
        """The default option's settings (what a config holds when no option was chosen)."""
        return self[self.default].schema()

    def name_of(self, settings: object) -> str:
        """The option ``settings`` belong to."""
        return getattr(settings, self.key)

    def build(self, settings: object, *context: object):
        """The component ``settings`` describe (None for an option with nothing to build)."""
        build = self[self.name_of(settings)].build
        return None if build is None else build(settings, *context)

    def schemas(self) -> Iterator[tuple[str, Callable[[], type], tuple[str, ...] | None]]:
        """For each option, importing none: its name, a function that returns its schema, and where that
        schema is made from (``Option.where``; a derived option: every own option's), or None when a part is
        an object already. ``config/groups.py`` stores them in Hydra's ConfigStore as ``schema/<path>/<name>``."""
        own = {name: option.where() for name, option in self._options.items()}
        for name in self:
            if name in self._options:
                where = own[name]
            else:  # a derived option's schema is made from the others' (retrieval=hybrid)
                named = all(w is not None for w in own.values())
                where = ("derived", self.group, name, *(p for w in own.values() for p in w)) if named else None
            yield name, lambda name=name: self[name].schema, where

    def check_choice(self, settings: object) -> None:
        """A ConfigError unless ``settings``' name field is its option's own.

        ``retrieval=bm25 retrieval.mode=dense`` is such an error: the option is chosen by the group key.
        """
        value = self.name_of(settings)
        own = type(settings).__dataclass_fields__[self.key].default
        if value != own:
            raise ConfigError(
                f"{self.group}.{self.key} ({value!r}) must be one of: {', '.join(self)}; "
                f"choose another option with {self.group}=<{self.key}> (the chosen one is {self.group}={own})"
            )

    def not_a_setting(self, name: str, key: str) -> str:
        """The message for a key that option ``name`` does not have, naming the keys it has."""
        known = [f.name for f in fields(self[name].schema)]
        others = ", ".join(k for k in known if k != self.key)
        has = f"its settings are: {others}" if others else "it has no settings"
        return f"{self.group}.{key} is not a setting of {self.group}={name}; {has}"

    def option_of_schema(self, schema_name: str) -> str | None:
        """The option whose schema class is called ``schema_name`` (Hydra's messages name the class)."""
        return next((name for name in self if self[name].schema_name == schema_name), None)


def fill_defaults(settings: object, groups: Iterable[Options]) -> None:
    """Give each of ``groups`` that ``settings`` holds unset (``MISSING``) its default option's settings.

    A config built in Python (``Config()``) then equals the one Hydra composes from ``configs/`` defaults.
    """
    for group in groups:
        if getattr(settings, group.group, None) == MISSING:
            setattr(settings, group.group, group.default_settings())


def one_of(key: str, value: object, allowed: tuple[str, ...] | list[str]) -> None:
    """ConfigError unless ``value`` is one of ``allowed``."""
    if value not in allowed:
        raise ConfigError(f"{key} ({value!r}) must be one of: {', '.join(allowed)}")
