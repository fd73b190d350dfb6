"""Cluster launchers: the schemas behind rag-bench's presets, and the set-up each Ray worker runs.

``configs/hydra/launcher/submitit_slurm.yaml`` and ``ray.yaml`` take the names of the plugins' own
configs. Hydra would merge a YAML file with a structured config of the same name (a deprecated
"automatic schema matching" that warns), so the plugins' entries are moved here to aliases
(``rag_bench_submitit_slurm``, ``rag_bench_ray``) that the presets extend: they keep the plugins'
typed schemas, so a misspelt launcher key still fails at start-up.
The ``rag_bench_cache`` and ``rag_bench_cwd`` resolvers give the cache folder and the working folder as
absolute paths, as the driver sees them when it launches, so that every job uses the same cache and
resolves relative paths (``hydra.sweep.dir``, ``dataset.path``) as the driver does, whatever folder
and environment the scheduler starts it in.
"""

from __future__ import annotations

import importlib
import os

from hydra.core.config_store import ConfigStore
from hydra.core.plugins import Plugins
from omegaconf import OmegaConf

from rag_bench.core.cache import default_cache_dir

# preset name -> (alias, plugin module that registers the name, rag-bench's launcher class over the plugin's)
PRESETS: dict[str, tuple[str, str, str]] = {
    "submitit_slurm": (
        "rag_bench_submitit_slurm",
        "hydra_plugins.hydra_submitit_launcher.config",
        "hydra_plugins.rag_bench_launchers.slurm:SlurmLauncher",
    ),
    "ray": (
        "rag_bench_ray",
        "hydra_plugins.hydra_ray_launcher._config",
        "hydra_plugins.rag_bench_launchers.ray:RayLauncher",
    ),
}
PLAN_LAUNCHER = "rag_bench_plan"  # hydra/launcher=rag_bench_plan: plans each point of a --dry-run sweep
PLAN_MODULE = "hydra_plugins.rag_bench_launchers.plan"
WORKDIR_ENV = "RAG_BENCH_WORKDIR"  # the driver's working directory, for Ray workers
# the driver's variables a Ray worker needs (workers start with the raylet's environment); only those set are sent
FORWARDED = ("VOYAGE_API_KEY", "VOYAGE_API_KEY_PATH", "ANTHROPIC_API_KEY", "RAG_BENCH_CLAIM_TIMEOUT", "XDG_CACHE_HOME")


def register() -> None:
    """Move installed launcher plugins' configs to their aliases; register the resolvers the presets use."""
    plugins = Plugins.instance()  # Hydra's one plugin scan, which runs each plugin's config module
    launchers = ConfigStore.instance().repo.setdefault("hydra", {}).setdefault("launcher", {})
    for name, (alias, module, launcher) in PRESETS.items():
        try:
            importlib.import_module(module)
            launcher_module, launcher_class = launcher.split(":")
            # the scan misses it in an editable install (a path hook it cannot list), so register it by hand
            plugins.register(getattr(importlib.import_module(launcher_module), launcher_class))
        except ImportError:
            continue  # `pip install rag-bench[distributed]` brings it; the preset then names the missing alias
        node = launchers.pop(f"{name}.yaml", None)
        if node is not None:
            node.name = f"{alias}.yaml"
            launchers[node.name] = node
    # --dry-run's launcher (entry/planning.py), named by its module as the cluster launchers are: the plugin
    # sits above rag-bench (it calls the Hydra app), so rag-bench does not import it by name
    plan = importlib.import_module(PLAN_MODULE)
    plugins.register(plan.PlanLauncher)
    ConfigStore.instance().store(
        group="hydra/launcher", name=PLAN_LAUNCHER, node=plan.PlanLauncherConf, provider="rag-bench"
    )
    if not OmegaConf.has_resolver("rag_bench_cache"):
        OmegaConf.register_new_resolver("rag_bench_cache", lambda: str(default_cache_dir().expanduser().resolve()))
        OmegaConf.register_new_resolver("rag_bench_cwd", os.getcwd)


def forwarded_environment() -> dict[str, str]:
    """The driver's values of the ``FORWARDED`` variables that are set (API keys: never logged, never written)."""
    return {name: os.environ[name] for name in FORWARDED if os.environ.get(name)}


def ray_worker_setup() -> None:
    """Ray ``worker_process_setup_hook``: work in the driver's folder, as the basic launcher does.

    Ray starts workers in the raylet's folder, not the driver's, so relative paths in a sweep
    (``hydra.sweep.dir``, ``dataset.path``) would land elsewhere without it.
    """
    folder = os.environ.get(WORKDIR_ENV)
    if folder and os.path.isdir(folder):
        os.chdir(folder)
