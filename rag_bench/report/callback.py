"""Hydra callback: when a multirun ends, write the sweep's summary, report and plots into its folder.

Registered in configs/config.yaml as
``hydra.callbacks.sweep_report._target_: rag_bench.report.callback.SweepReport``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from rag_bench.errors import RagBenchError
from rag_bench.report.sweep_cli import DEFAULT_METRIC, ReportOptions, report_sweep

log = logging.getLogger(__name__)


class SweepReport(Callback):
    """Aggregate the sweep when the multirun ends (same as ``rag-bench report SWEEP_DIR``)."""

    def __init__(self, metric: str = DEFAULT_METRIC, alpha: float = 0.05, seed: int = 0) -> None:
        self.options = ReportOptions(metric=metric, alpha=alpha, seed=seed)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        folder = Path(config.hydra.sweep.dir)
        try:
            written = report_sweep(folder, options=self.options)
        except RagBenchError as exc:  # the points are written; a report problem must not hide them
            log.warning("sweep report not written: %s (retry: rag-bench report %s)", exc, folder)
            return
        report = next(p for p in written if p.name == "report.md")
        log.info("sweep report: %s (%d files in %s)", report, len(written), folder)
