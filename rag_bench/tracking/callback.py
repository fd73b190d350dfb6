"""Hydra callback: log each run, or each point of a sweep under one parent run, to MLflow (``tracking=mlflow``).

``configs/tracking/mlflow.yaml`` registers it as ``hydra.callbacks.mlflow``; ``tracking.uri`` and
``tracking.experiment`` set its two settings (``hydra_app.GROUP_ALIASES``). The work is ``tracker.Tracker``'s.
Each point is logged when its job ends, in the process that ran it; the parent run gets the sweep's report
when the sweep ends, after ``SweepReport`` wrote it (Hydra ends callbacks in reverse order, and ``tracking``
comes before the report's callback in configs/config.yaml).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from rag_bench.core.errors import RagBenchError
from rag_bench.tracking.tracker import Tracker


class MLflowTracking(Callback):
    """Log runs and sweep points to MLflow (module docstring)."""

    def __init__(self, uri: str | None = None, experiment: str | None = None) -> None:
        try:
            self.tracker = Tracker(uri, experiment)
        except RagBenchError as exc:  # before any work: one line, exit 2 (Hydra passes SystemExit through)
            print(f"rag-bench: error: {exc}", file=sys.stderr)
            sys.exit(2)

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        self.tracker.start_sweep(Path(config.hydra.sweep.dir))

    def on_job_end(self, config: DictConfig, job_return: Any, **kwargs: Any) -> None:
        from hydra.core.utils import JobStatus
        from hydra.types import RunMode

        folder = Path(config.hydra.runtime.output_dir)
        if job_return.status != JobStatus.COMPLETED or not (folder / "metrics.json").is_file():
            return
        sweep = Path(config.hydra.sweep.dir) if config.hydra.mode == RunMode.MULTIRUN else None
        num = OmegaConf.select(config, "hydra.job.num", default=0)
        self.tracker.log_run(folder, list(config.hydra.overrides.task), sweep, num)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        self.tracker.end_sweep(Path(config.hydra.sweep.dir))
