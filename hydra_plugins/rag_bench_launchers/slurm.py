"""hydra-submitit-launcher's SLURM launcher, with a job that failed or died reported in one line."""

from __future__ import annotations

from collections.abc import Sequence

from hydra.core.utils import JobReturn
from hydra_plugins.hydra_submitit_launcher.submitit_launcher import SlurmLauncher as SubmititSlurmLauncher

from rag_bench.launch.failure import reporting


class SlurmLauncher(SubmititSlurmLauncher):
    """``hydra/launcher=submitit_slurm`` (configs/hydra/launcher/submitit_slurm.yaml)."""

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        from submitit.core.utils import FailedJobError, UncompletedJobError  # imported when a sweep starts

        return reporting(
            "SLURM",
            str(self.config.hydra.sweep.dir),
            (UncompletedJobError, FailedJobError),
            lambda: super(SlurmLauncher, self).launch(job_overrides, initial_job_idx),
        )
