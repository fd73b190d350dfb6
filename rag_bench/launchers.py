"""Cluster launchers: the schemas behind rag-bench's presets, and the set-up each Ray worker runs.

``configs/hydra/launcher/submitit_slurm.yaml`` and ``ray.yaml`` take the names of the plugins' own
configs. Hydra would merge a YAML file with a structured config of the same name (a deprecated
"automatic schema matching" that warns), so the plugins' entries are moved here to aliases
(``rag_bench_submitit_slurm``, ``rag_bench_ray``) that the presets extend: they keep the plugins'
typed schemas, so a misspelt launcher key still fails at start-up.
The ``rag_bench_cache`` resolver gives the cache folder as an absolute path, as the driver sees it, so
that every job uses the same cache whatever its working directory or environment.
"""

from __future__ import annotations

import importlib
import os

from hydra.core.config_store import ConfigStore
from hydra.core.plugins import Plugins
from omegaconf import OmegaConf

from rag_bench.cache import default_cache_dir

# preset name -> (alias, plugin module that registers the name); only installed plugins are moved
PRESETS: dict[str, tuple[str, str]] = {
    "submitit_slurm": ("rag_bench_submitit_slurm", "hydra_plugins.hydra_submitit_launcher.config"),
    "ray": ("rag_bench_ray", "hydra_plugins.hydra_ray_launcher._config"),
}
WORKDIR_ENV = "RAG_BENCH_WORKDIR"  # the driver's working directory, for Ray workers


def register() -> None:
    """Move installed launcher plugins' configs to their aliases; register the ``rag_bench_cache`` resolver."""
    Plugins.instance()  # Hydra's one plugin scan, which runs each plugin's config module: it registers `name`
    launchers = ConfigStore.instance().repo.setdefault("hydra", {}).setdefault("launcher", {})
    for name, (alias, module) in PRESETS.items():
        try:
            importlib.import_module(module)
        except ImportError:
            continue  # `pip install rag-bench[distributed]` brings it; the preset then names the missing alias
        node = launchers.pop(f"{name}.yaml", None)
        if node is not None:
            node.name = f"{alias}.yaml"
            launchers[node.name] = node
    if not OmegaConf.has_resolver("rag_bench_cache"):
        OmegaConf.register_new_resolver("rag_bench_cache", lambda: str(default_cache_dir().expanduser().resolve()))


def ray_worker_setup() -> None:
    """Ray ``worker_process_setup_hook``: work in the driver's folder, as the basic launcher does.

    Ray starts workers in the raylet's folder, not the driver's, so relative paths in a sweep
    (``hydra.sweep.dir``, ``dataset.path``) would land elsewhere without it.
    """
    folder = os.environ.get(WORKDIR_ENV)
    if folder and os.path.isdir(folder):
        os.chdir(folder)
