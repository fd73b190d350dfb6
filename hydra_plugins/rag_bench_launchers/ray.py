"""hydra-ray-launcher's launcher: secrets forwarded to the workers unlogged, a dead worker reported in one line."""

from __future__ import annotations

from collections.abc import Sequence

from hydra.core.utils import JobReturn
from hydra_plugins.hydra_ray_launcher.ray_launcher import RayLauncher as HydraRayLauncher
from omegaconf import OmegaConf

from rag_bench.launch.failure import reporting
from rag_bench.launch.presets import forwarded_environment


class RayLauncher(HydraRayLauncher):
    """``hydra/launcher=ray`` (configs/hydra/launcher/ray.yaml)."""

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        import ray  # imported when a sweep starts (Hydra scans this module on every run)
        from ray.exceptions import RayError

        if not ray.is_initialized():
            # connect here rather than in the plugin, which logs its whole init config: API keys among it
            init = OmegaConf.to_container(self.ray_cfg.init, resolve=True)
            runtime_env = init.setdefault("runtime_env", {}) or {}
            runtime_env["env_vars"] = {**forwarded_environment(), **(runtime_env.get("env_vars") or {})}
            ray.init(**{**init, "runtime_env": runtime_env})
        return reporting(
            "Ray",
            str(self.config.hydra.sweep.dir),
            (RayError,),
            lambda: super(RayLauncher, self).launch(job_overrides, initial_job_idx),
        )
