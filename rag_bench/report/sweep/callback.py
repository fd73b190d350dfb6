"""Hydra callback: when a multirun ends, write the sweep's summary, report and plots into its folder.

Registered in configs/config.yaml as
``hydra.callbacks.sweep_report._target_: rag_bench.report.sweep.callback.SweepReport``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from rag_bench.core.errors import RagBenchError

log = logging.getLogger(__name__)


class SweepReport(Callback):
    """Aggregate the sweep when the multirun ends (same as ``rag-bench report SWEEP_DIR``)."""

    def __init__(self, metric: str | None = None, alpha: float = 0.05, seed: int = 0) -> None:
        # the report's modules (pandas, matplotlib) are imported only when a multirun ends,
        # so that single runs, which also load this callback, start fast
        self.metric, self.alpha, self.seed = metric, alpha, seed

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        from rag_bench.core.cache import DiskCache, cache_root
        from rag_bench.report.sweep.cli import DEFAULT_METRIC, ReportOptions, write_report

        folder = Path(config.hydra.sweep.dir)
        options = ReportOptions(metric=self.metric or DEFAULT_METRIC, alpha=self.alpha, seed=self.seed)
        cache = DiskCache(cache_root(OmegaConf.select(config, "cache_dir")))  # the sweep's cache, as its points'
        try:
            written, summary = write_report(folder, options=options, cache=cache)
        except RagBenchError as exc:  # the points are written; a report problem must not hide them
            log.warning("sweep report not written: %s (retry: rag-bench report %s)", exc, folder)
            return
        report = next(p for p in written if p.name == "report.md")
        print(summary, flush=True)  # the summary once, after one line per point
        log.info("sweep report: %s (%d files in %s)", report, len(written), folder)
