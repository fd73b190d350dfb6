"""Hydra callback: in a multirun on the basic launcher, compose each job's config once, not twice, and not again.

Hydra's basic sweeper composes every job's config up front to check the whole batch before any
job runs, then its basic launcher composes each again just before running it: the same function
of the same inputs (the sweep's config and the job's overrides), at about a tenth of a second
each. While the multirun lasts, this keeps each config the check composed and hands it to the
launcher's request for the same overrides, once; any other request composes as before (through the
disk cache the CLI installs, ``compose_cache.py``, so a sweep run again composes nothing). Other
launchers (joblib, submitit, Ray) compose in their own processes and are left alone.

Registered in configs/config.yaml as ``hydra.callbacks.compose_once._target_``:
``rag_bench.config.compose_once.ComposeOnce``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hydra.core.global_hydra import GlobalHydra
from hydra.experimental.callback import Callback
from omegaconf import DictConfig

BASIC_LAUNCHER = "hydra._internal.core_plugins.basic_launcher.BasicLauncher"
# launchers that compose each job in this process, as the basic one does (--dry-run's: rag_bench_launchers/plan.py)
IN_PROCESS = (BASIC_LAUNCHER, "hydra_plugins.rag_bench_launchers.plan.PlanLauncher")
KEEP = 256  # configs held between the check and the launch; a larger batch composes the rest again


class ComposeOnce(Callback):
    """Serve the launcher the job configs the batch check composed."""

    def __init__(self) -> None:
        self._loader: Any = None

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        hydra = GlobalHydra.instance().hydra if GlobalHydra.instance().is_initialized() else None
        if hydra is None or config.hydra.launcher.get("_target_") not in IN_PROCESS:
            return
        self._loader = hydra.config_loader
        self._loader.load_sweep_config = composed_once(self._loader.load_sweep_config)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        if self._loader is not None:
            del self._loader.load_sweep_config  # the class's method again
            self._loader = None


def composed_once(load: Callable[..., DictConfig]) -> Callable[..., DictConfig]:
    """``load(master_config, sweep_overrides)``, each result kept for the next call with the same arguments, once.

    Calls for the same arguments alternate: the first (the batch check, which ignores the result)
    composes and keeps the config; the second returns that same object and forgets it (the
    launcher then sets the job's number in it); a third composes afresh, and so on. Keyed by the
    master config's identity and the overrides; at most ``KEEP`` configs are held at a time.
    """
    kept: dict[tuple[int, tuple[str, ...]], DictConfig] = {}
    calls: dict[tuple[int, tuple[str, ...]], int] = {}

    def load_sweep_config(master_config: DictConfig, sweep_overrides: list[str]) -> DictConfig:
        key = (id(master_config), tuple(sweep_overrides))
        calls[key] = calls.get(key, 0) + 1
        if calls[key] % 2 == 0 and key in kept:
            return kept.pop(key)
        config = load(master_config, sweep_overrides)
        if calls[key] % 2 == 1 and len(kept) < KEEP:
            kept[key] = config
        return config

    return load_sweep_config
