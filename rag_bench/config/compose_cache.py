"""Hydra's compositions through the disk cache: each config composed once per set of inputs.

Hydra composes a config from its inputs alone: the config sources (the primary config folder,
Hydra's packaged configs, the schemas in its ConfigStore), the overrides, the run mode, and a few
facts of the process (working directory, Hydra's version and version_base, the job's name, and the
environment variables ``hydra.job.env_copy`` names). At about a tenth of a second each (a sweep
composes its own config twice and every job's), composing was the largest share of a warm 24-point
sweep. While ``installed`` (the CLI, ``hydra_app.run_hydra``), every ``load_configuration`` of the process
goes through ``CachedComposer``, which keeps each composed config in the cache (namespace
``composed``, pickled, as Hydra's own launchers pickle job configs) under

    key = sha256("composed", hydra and omegaconf versions, version_base, job name, working directory,
                 config name, overrides, run mode and flags, sources digest)

where the sources digest covers every file below each folder or package source (relative path and
content) and every ConfigStore node (pickled: values, types and flags; an option's schema not yet
imported by where it lives and rag-bench's ``code_version``, ``lazy_store.py``). A hit whose ``env_copy``
values differ from the environment's is composed again. What a config resolved while it was
composed is dropped on a hit (its resolver cache: ``${now:...}`` in the default output folders), so
it is resolved again when first read, as in a fresh composition, not at the time the entry was kept.

The output folder (``hydra.sweep.dir=...``, ``hydra.run.dir=...``, new for every sweep) would make
every key new, so such an override is composed with a placeholder value, and the real value is put
back into the composed config: composing applies it as one ``OmegaConf.update`` of a string and
records it in ``hydra.overrides.hydra``, so placing the value and the override line there is what
Hydra does with it (``test_compose_cache.py`` checks the result pickles equal to Hydra's).

Composing as Hydra does is the fallback whenever something falls outside that key: a search path
added by a config or an override (``hydra.searchpath``), a source of another kind, a node that does
not pickle, a cache that cannot be written; and a composition that fails is composed again with the
user's own overrides, so its error is Hydra's own. The cache folder is the one a ``cache_dir=...``
on the command line names, else ``RAG_BENCH_CACHE`` or the default.

Hydra composes a command's config twice before a run: once in multirun mode only to read ``hydra.mode``
(``Hydra.get_mode``), then the run's own. While installed, ``get_mode`` reads the mode from the run's
own composition instead (run mode, the same overrides) and hands that config to the run's
``load_configuration`` when it asks for exactly those inputs next, with Hydra's ``hydra.mode=RUN`` line
applied as composing applies it (``with_run_mode``) when the config sets no mode: one composition,
cold or from the cache. A command line the run mode refuses (a sweep override, a missing value) is
left to Hydra's ``get_mode``.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import os
import pickle
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from hydra.core.utils import JobRuntime
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf

from rag_bench.config.lazy_store import LazyNode
from rag_bench.core.cache import DiskCache, cache_root, code_version, digest

NAMESPACE = "composed"
SEARCHPATH = "hydra.searchpath"
FOLDERS = ("hydra.sweep.dir", "hydra.run.dir")  # output folders: composed with PLACEHOLDER, then placed
PLACEHOLDER = "RAG_BENCH_OUTPUT_FOLDER"


class CachedComposer:
    """Hydra's ``ConfigLoaderImpl.load_configuration``, each result kept in ``cache``."""

    def __init__(self, cache: DiskCache, compose: Callable[..., DictConfig]) -> None:
        from hydra import __version__ as hydra_version
        from hydra import version
        from omegaconf import __version__ as omegaconf_version

        self.cache, self._compose = cache, compose  # compose(loader, config_name, overrides, run_mode, ...)
        self.versions = (hydra_version, omegaconf_version, str(version.getbase()))
        self._sources: dict[int, tuple[Any, str | None]] = {}  # id(repository) -> (it, kept alive; its digest)
        self._held: tuple[tuple, DictConfig] | None = None  # get_mode's composition, for the next compose

    def compose(
        self,
        loader: Any,
        config_name: str | None,
        overrides: list[str],
        run_mode: RunMode,
        from_shell: bool = True,
        validate_sweep_overrides: bool = True,
    ) -> DictConfig:
        """The composed config: from the cache when these inputs were composed before, else Hydra's."""
        flags = (run_mode, from_shell, validate_sweep_overrides)
        held, self._held = self._held, None  # get_mode's composition serves the very next call, if it asks for it
        if held is not None and held[0] == (id(loader), config_name, tuple(overrides), *flags):
            return held[1]
        sources = self.sources(loader)
        if sources is None or any(o.lstrip("+~").startswith(SEARCHPATH) for o in overrides):
            return self._compose(loader, config_name, overrides, *flags)
        generic, folders = output_folders(overrides)
        key = digest(NAMESPACE, *self.versions, job_name(), os.getcwd(), config_name, generic, flags, sources)
        config = self._read(key)
        if config is None:
            try:
                config = self._compose(loader, config_name, generic, *flags)
            except Exception:  # fails with a placeholder: let Hydra fail (or not) on the user's own words
                return self._compose(loader, config_name, overrides, *flags)
            # kept unless a config's own search path added sources, or a source changed since the digest
            unchanged = sources_digest(loader.repository.get_sources()) == sources
            if unchanged and not OmegaConf.select(config, SEARCHPATH):
                self._keep(key, config)
        return place(config, folders)

    def mode(self, loader: Any, config_name: str | None, overrides: list[str]) -> RunMode | None:
        """``hydra.mode`` of the config the run composes (held for it); raises what that composition raises."""
        config = self.compose(loader, config_name, list(overrides), RunMode.RUN)
        mode = config.hydra.mode
        ran = [*overrides, "hydra.mode=RUN"] if mode is None else list(overrides)  # what Hydra's _run_app passes
        held = with_run_mode(config) if mode is None else config
        self._held = ((id(loader), config_name, tuple(ran), RunMode.RUN, True, True), held)
        return mode

    def sources(self, loader: Any) -> str | None:
        """The digest of ``loader``'s config sources (``sources_digest``), once per loader: the sources as the
        command found them (a file edited while it runs is seen by the next command, and never kept under
        the old digest: ``compose`` digests them again before it keeps a composition)."""
        repository = loader.repository
        if id(repository) not in self._sources:
            self._sources[id(repository)] = (repository, sources_digest(repository.get_sources()))
        return self._sources[id(repository)][1]

    def _keep(self, key: str, config: DictConfig) -> None:
        try:
            env = {name: os.environ.get(name) for name in config.hydra.job.env_copy}
            blob = pickle.dumps((env, config), protocol=pickle.HIGHEST_PROTOCOL)
            self.cache.put(NAMESPACE, key, blob, durable=False)  # torn by a power cut: fails its checksum, recomposed
        except (OSError, pickle.PicklingError, TypeError, AttributeError):
            pass  # not kept: the next run composes it again

    def _read(self, key: str) -> DictConfig | None:
        try:
            blob = self.cache.get(NAMESPACE, key)
            env, config = pickle.loads(blob) if blob is not None else (None, None)
        except Exception:  # unreadable (another environment): composed again
            return None
        if not isinstance(config, DictConfig) or not isinstance(env, dict):
            return None
        if any(os.environ.get(name) != value for name, value in env.items()):
            return None
        OmegaConf.clear_cache(config)  # ${now:...} as resolved when it was kept: resolved afresh, now
        return config


@contextmanager
def installed(cache_dir: str | None) -> Iterator[CachedComposer]:
    """Every composition of this process through the cache in ``cache_dir`` (None: the default) while it lasts."""
    from hydra._internal.config_loader_impl import ConfigLoaderImpl
    from hydra._internal.hydra import Hydra

    original, original_mode = ConfigLoaderImpl.load_configuration, Hydra.get_mode
    composer = CachedComposer(DiskCache(cache_root(cache_dir)), original)

    def load_configuration(self, config_name, overrides, run_mode, from_shell=True, validate_sweep_overrides=True):
        return composer.compose(self, config_name, overrides, run_mode, from_shell, validate_sweep_overrides)

    def get_mode(self, config_name, overrides):
        if not sweeping(overrides):
            try:
                return composer.mode(self.config_loader, config_name, overrides)
            except Exception:  # refused in run mode (a missing value): Hydra's own get_mode decides
                pass
        return original_mode(self, config_name, overrides)

    ConfigLoaderImpl.load_configuration, Hydra.get_mode = load_configuration, get_mode
    try:
        yield composer
    finally:
        ConfigLoaderImpl.load_configuration, Hydra.get_mode = original, original_mode


def cache_dir_override(overrides: list[str]) -> str | None:
    """The value of a plain ``cache_dir=...`` among command-line overrides, else None."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    for line in overrides:
        if line.partition("=")[0].strip() == "cache_dir":
            parsed = OverridesParser.create().parse_override(line)
            value = parsed.value()
            return value if isinstance(value, str) and not parsed.is_sweep_override() else None
    return None


def sweeping(overrides: list[str]) -> bool:
    """Whether a command line holds a sweep override (``a=1,2``, ``range(...)``), or one that does not parse."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    try:
        return any(o.is_sweep_override() for o in OverridesParser.create().parse_overrides(overrides))
    except Exception:
        return True


def output_folders(overrides: list[str]) -> tuple[list[str], list[tuple[str, str, str]]]:
    """``overrides`` with each plain output-folder override's value replaced by ``PLACEHOLDER``, and
    (key, value, override line) of each one replaced."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    generic, folders = [], []
    for line in overrides:
        key, sep, _ = line.partition("=")
        if sep and key.strip() in FOLDERS:
            parsed = OverridesParser.create().parse_override(line)
            plain = not (parsed.is_add() or parsed.is_force_add() or parsed.is_delete() or parsed.is_sweep_override())
            if plain and isinstance(parsed.value(), str):  # not +, ++, ~, a sweep, a list or a number
                folders.append((parsed.key_or_group, parsed.value(), parsed.input_line))
                line = f"{parsed.key_or_group}={PLACEHOLDER}"
        generic.append(line)
    return generic, folders


def place(config: DictConfig, folders: list[tuple[str, str, str]]) -> DictConfig:
    """``config`` composed with placeholders, with each output folder's value and override line put back."""
    lines = config.hydra.overrides.hydra
    for key, value, line in folders:
        OmegaConf.update(config, key, value, merge=True)
        lines[OmegaConf.to_container(lines).index(f"{key}={PLACEHOLDER}")] = line  # unresolved: a line may hold ${now:}
    return config


def with_run_mode(config: DictConfig) -> DictConfig:
    """``config`` as composing it with one more override, ``hydra.mode=RUN``, makes it: the value set, the line
    recorded last among the Hydra overrides (``test_compose_cache.py`` checks it pickles equal to Hydra's)."""
    OmegaConf.update(config, "hydra.mode", RunMode.RUN, merge=True)
    config.hydra.overrides.hydra.append("hydra.mode=RUN")
    return config


def job_name() -> str | None:
    """The job name Hydra gives a config that sets none (the task function's), or None before it is known."""
    try:
        return JobRuntime.instance().get("name")
    except KeyError:
        return None


def sources_digest(sources: list[Any]) -> str | None:
    """sha256 over every config source (``file``, ``pkg``, ``structured``); None when one is of another kind."""
    h = hashlib.sha256()
    for source in sources:
        scheme = source.scheme()
        h.update(f"{scheme}:{source.path}\0".encode())
        if scheme == "file":
            _tree(h, Path(source.path))
        elif scheme == "pkg":
            _tree(h, importlib.resources.files(source.path))
        elif scheme == "structured":
            try:
                _store(h, ConfigStore.instance().repo)
            except (pickle.PicklingError, TypeError, AttributeError):
                return None
        else:
            return None
    return h.hexdigest()


def _tree(h: Any, folder: Any, prefix: str = "") -> None:
    """Every file below ``folder`` (a Path or an importlib Traversable), by relative path and content."""
    if not folder.is_dir():
        return
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if item.name == "__pycache__":
            continue
        if item.is_dir():
            _tree(h, item, f"{prefix}{item.name}/")
        else:
            h.update(f"{prefix}{item.name}\0".encode())
            h.update(hashlib.sha256(item.read_bytes()).digest())


def _store(h: Any, repo: dict, prefix: str = "") -> None:
    """Every ConfigStore node by path: name, group, package, provider and the node itself, pickled; a lazy
    option schema (``lazy_store.LazyNode``) by where it is made from and rag-bench's sources, unmade."""
    for name in sorted(repo):
        entry = repo[name]
        if isinstance(entry, dict):
            _store(h, entry, f"{prefix}{name}/")
        else:
            h.update(f"{prefix}{name}\0".encode())
            node = ("lazy", entry.identity, code_version()) if isinstance(entry, LazyNode) else entry.node
            h.update(pickle.dumps((entry.name, entry.group, entry.package, entry.provider, node)))
