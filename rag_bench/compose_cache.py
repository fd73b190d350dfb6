"""A multirun's job configs through the disk cache: each one composed by Hydra once per set of inputs.

Hydra composes a job's config from its inputs alone: the config sources (the primary config folder,
Hydra's packaged configs, the schemas in its ConfigStore), the job's overrides, and a few facts of
the process (working directory, Hydra's version and version_base, the job's name, and the
environment variables ``hydra.job.env_copy`` names). At about a tenth of a second a job, composing
was the largest share of a warm 24-point sweep. ``CachedComposer`` keeps each composed config in the
cache (namespace ``composed``, pickled, as Hydra's own launchers pickle job configs) under

    key = sha256("composed", hydra and omegaconf versions, version_base, job name, working directory,
                 config name, overrides, sources digest)

where the sources digest covers every file below each folder or package source (relative path and
content) and every ConfigStore node (pickled: values, types and flags). A hit whose ``env_copy``
values differ from the environment's is composed again.

The output folder (``hydra.sweep.dir=...``, ``hydra.run.dir=...``, new for every sweep) would make
every key new, so such an override is composed with a placeholder value, and the real value is put
back into the composed config: composing applies it as one ``OmegaConf.update`` of a string and
records it in ``hydra.overrides.hydra``, so placing the value and the override line there is what
Hydra does with it (``test_compose_cache.py`` checks the result pickles equal to Hydra's).

Composing as Hydra does is the fallback whenever something falls outside that key: a search path
added by a config or an override (``hydra.searchpath``), a source of another kind, a node that does
not pickle, a cache that cannot be written.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import os
import pickle
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from hydra.core.utils import JobRuntime
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf

from rag_bench.cache import DiskCache, cache_root, digest

NAMESPACE = "composed"
SEARCHPATH = "hydra.searchpath"
FOLDERS = ("hydra.sweep.dir", "hydra.run.dir")  # output folders: composed with PLACEHOLDER, then placed
PLACEHOLDER = "RAG_BENCH_OUTPUT_FOLDER"


class CachedComposer:
    """``loader.load_configuration(config_name, overrides, RUN)``, each result kept in ``cache``."""

    def __init__(self, loader: Any, cache: DiskCache, sources: str) -> None:
        from hydra import __version__ as hydra_version
        from hydra import version
        from omegaconf import __version__ as omegaconf_version

        self.loader, self.cache = loader, cache
        self.base = (hydra_version, omegaconf_version, str(version.getbase()), job_name())
        self.sources = sources

    @classmethod
    def create(cls, loader: Any, master: DictConfig) -> CachedComposer | None:
        """A composer for the jobs of the multirun ``master`` describes, or None when its inputs cannot be keyed."""
        if OmegaConf.select(master, SEARCHPATH):
            return None
        sources = sources_digest(loader.repository.get_sources())
        if sources is None:
            return None
        cache_dir = OmegaConf.select(master, "cache_dir", default=None)
        return cls(loader, DiskCache(cache_root(cache_dir)), sources)

    def compose(self, config_name: str | None, overrides: list[str]) -> DictConfig:
        """The composed config: from the cache when these inputs were composed before, else Hydra's."""
        if any(o.lstrip("+~").startswith(SEARCHPATH) for o in overrides):
            return self._hydra(config_name, overrides)
        generic, folders = output_folders(overrides)
        key = digest(NAMESPACE, *self.base, os.getcwd(), config_name, generic, self.sources)
        config = self._read(key)
        if config is None:
            config = self._hydra(config_name, generic)
            try:
                env = {name: os.environ.get(name) for name in config.hydra.job.env_copy}
                self.cache.put(NAMESPACE, key, pickle.dumps((env, config), protocol=pickle.HIGHEST_PROTOCOL))
            except (OSError, pickle.PicklingError, TypeError, AttributeError):
                pass  # not kept: the next run composes it again
        return place(config, folders)

    def _hydra(self, config_name: str | None, overrides: list[str]) -> DictConfig:
        return self.loader.load_configuration(config_name=config_name, overrides=overrides, run_mode=RunMode.RUN)

    def _read(self, key: str) -> DictConfig | None:
        try:
            blob = self.cache.get(NAMESPACE, key)
            env, config = pickle.loads(blob) if blob is not None else (None, None)
        except Exception:  # unreadable (another environment): composed again
            return None
        if not isinstance(config, DictConfig) or not isinstance(env, dict):
            return None
        return config if all(os.environ.get(name) == value for name, value in env.items()) else None


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
        lines[list(lines).index(f"{key}={PLACEHOLDER}")] = line
    return config


def job_name() -> str | None:
    """The job name Hydra gives a config that sets none (the task function's), or None before it is known."""
    try:
        return JobRuntime.instance().get("name")
    except KeyError:
        return None


def load_sweep_config(composer: CachedComposer, master_config: DictConfig, sweep_overrides: list[str]) -> DictConfig:
    """Hydra's ``ConfigLoaderImpl.load_sweep_config`` with the composition through ``composer``.

    As Hydra: the master's Hydra overrides, then the job's, composed in run mode; then the master's
    resolver cache copied in, so that the job resolves ``${now:...}`` as the master did.
    """
    overrides = [*OmegaConf.to_container(master_config.hydra.overrides.hydra), *sweep_overrides]
    config = composer.compose(master_config.hydra.job.config_name, overrides)
    OmegaConf.copy_cache(from_config=master_config, to_config=config)
    return config


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
    """Every ConfigStore node by path: name, group, package, provider and the node itself, pickled."""
    for name in sorted(repo):
        entry = repo[name]
        if isinstance(entry, dict):
            _store(h, entry, f"{prefix}{name}/")
        else:
            h.update(f"{prefix}{name}\0".encode())
            h.update(pickle.dumps((entry.name, entry.group, entry.package, entry.provider, entry.node)))
