"""Option schemas in Hydra's ConfigStore, each made (its module imported) when a composition first loads it.

Hydra keeps a structured config as a ``ConfigNode`` whose ``node`` is ``OmegaConf.structured(schema)``.
``LazyNode`` is such a node that makes its ``node`` on first read, so registering every option of every
group imports none of them; composing ``chunker=fixed`` imports ``rag_bench.chunk.fixed`` alone. Copies
(``ConfigStore.load`` copies a node before each use) share what it made; a pickle is a plain node, made.

The compose cache digests every ConfigStore node (``compose_cache.sources_digest``) without making a
lazy one: ``LazyNode.identity`` is where its schema is made from, in rag-bench's own modules, and the
digest adds ``code_version()`` (every source of the package), so a changed schema changes the digest
as a pickled node did. A schema made from anything else is made when stored, as Hydra does.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from hydra.core.config_store import ConfigNode, ConfigStore
from omegaconf import DictConfig, OmegaConf

OWN = "rag_bench."  # where a part may live for its node to stay unmade: covered by code_version()


class LazyNode(ConfigNode):
    """A ConfigStore entry whose config is ``OmegaConf.structured(make())``, made when first read."""

    def __init__(self, name: str, group: str, make: Callable[[], type], identity: tuple[str, ...]) -> None:
        self._made: dict[str, DictConfig] = {}  # {"node": the config} once made; shared with shallow copies
        self._make = make
        self.identity = identity
        super().__init__(name=name, node=None, group=group, package=None, provider=None)

    @property
    def node(self) -> DictConfig:
        if "node" not in self._made:
            self._made["node"] = OmegaConf.structured(self._make())
        return self._made["node"]

    @node.setter
    def node(self, value: DictConfig | None) -> None:
        if value is not None:  # None: ConfigNode's __init__; a value: a copy's own (ConfigStore.load)
            self._made = {"node": value}

    def made(self) -> bool:
        return "node" in self._made

    def __copy__(self) -> LazyNode:
        new = object.__new__(LazyNode)
        new.__dict__.update(self.__dict__)  # the same holder: what one makes, every copy has
        return new

    def __deepcopy__(self, memo: dict) -> LazyNode:
        new = self.__copy__()
        new._made = copy.deepcopy(self._made, memo)  # unmade stays unmade (Hydra deep-copies its repositories)
        return new

    def __reduce__(self):
        """A pickle (a launcher sending Hydra's state to its workers) is a plain ``ConfigNode``, made."""
        return (ConfigNode, (self.name, self.node, self.group, self.package, self.provider))


def store_schema(group: str, name: str, make: Callable[[], type], where: tuple[str, ...] | None) -> None:
    """Store the schema ``make()`` returns as ``<group>/<name>``: made when loaded if ``where`` names only
    rag-bench's own modules, else now."""
    store = ConfigStore.instance()
    if where is None or not all(part.startswith(OWN) or not part.count(":") for part in where):
        store.store(group=group, name=name, node=make())
        return
    folder = store.repo
    for part in group.split("/"):
        folder = folder.setdefault(part, {})
    folder[f"{name}.yaml"] = LazyNode(f"{name}.yaml", group, make, where)
