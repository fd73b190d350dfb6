"""``rag-bench --dry-run`` on a sweep: a launcher that plans each point instead of running it.

Hydra's basic launcher sets up every job as a run (two deep copies of the config, logging, an output folder)
before calling the task; a plan needs none of it: each job's config is composed (through the composition
caches) and handed to ``rag_bench.entry.hydra_app.plan_point_config`` with the job's number and overrides.
Chosen by ``rag_bench/entry/planning.py`` as ``hydra/launcher=rag_bench_plan``; registered by
``rag_bench/launch/presets.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hydra._internal.core_plugins.basic_launcher import BasicLauncher
from hydra.core.utils import JobReturn, JobStatus
from omegaconf import open_dict, read_write

TARGET = "hydra_plugins.rag_bench_launchers.plan.PlanLauncher"


@dataclass
class PlanLauncherConf:
    _target_: str = TARGET


class PlanLauncher(BasicLauncher):
    """Plan each point of a sweep in this process, in order (``hydra/launcher=rag_bench_plan``)."""

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        from rag_bench.entry.hydra_app import plan_point_config

        runs = []
        for number, overrides in enumerate(job_overrides, start=initial_job_idx):
            config = self.hydra_context.config_loader.load_sweep_config(self.config, list(overrides))
            with read_write(config), open_dict(config):
                config.pop("hydra")
            value = plan_point_config(config, number, list(overrides))
            runs.append(
                JobReturn(overrides=list(overrides), cfg=config, status=JobStatus.COMPLETED, _return_value=value)
            )
        return runs
