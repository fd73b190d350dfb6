"""The slow, pure parts of a sweep report, kept in the cache: the marks and the plot images.

A repeated sweep writes a new folder whose points hold the same per-question scores; only what
each run did (seconds, texts embedded, cache hits) differs. Two parts of its report take most of
its time and depend on none of that, so each is kept under a key naming all it is computed from:

- marks (``marks.mark_points``: paired tests and bootstrap intervals over every point's per-question
  scores): sha256 of each point's name and ``per_question.csv`` bytes, the dataset folder's files as
  they are now (its dev/test field, when the questions carry one), the options and the code;
- plots (``plots.make_plots``): the summary table without the columns of what a run did
  (``sweep_work.RUN_WORK``, dropped before drawing, so no plot can read them), the headline metric,
  the swept columns, the code and matplotlib's version (the plots are drawn in matplotlib's default
  style, whatever a matplotlibrc says). A hit writes the PNG files without importing matplotlib.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from dataclasses import replace
from pathlib import Path

from rag_bench.core.cache import DiskCache, code_version, digest
from rag_bench.core.errors import RagBenchError
from rag_bench.core.files import write_bytes
from rag_bench.report.sweep.collect import SweepTable
from rag_bench.report.sweep.marks import Marks, mark_points
from rag_bench.report.sweep.plot_data import PlotData
from rag_bench.report.sweep.work import RUN_WORK
from rag_bench.run_folder.read import RunFolder

NAMESPACE = "report"


def kept_marks(cache: DiskCache, sweep: SweepTable, metric: str, alpha: float, seed: int, fraction: float) -> Marks:
    """``mark_points(sweep, metric, alpha, seed, fraction)``, computed once per set of inputs."""
    points = [str(p) for p in sweep.table["point"]]
    scores = [hashlib.sha256((sweep.folder / p / "per_question.csv").read_bytes()).hexdigest() for p in points]
    dataset = _dataset_state(sweep.folder / points[0]) if points else None
    key = digest("marks", code_version(), points, scores, dataset, metric, alpha, seed, fraction)
    return cache.get_or_compute(NAMESPACE, key, lambda: mark_points(sweep, metric, alpha, seed, fraction))[0]


def kept_plots(cache: DiskCache, data: PlotData, out_dir: Path) -> list[Path]:
    """``make_plots`` of ``data`` without the run columns, into ``out_dir``, drawn once per set of inputs."""
    data = replace(data, table=data.table.drop(columns=[c for c in RUN_WORK if c in data.table]))
    table = data.table.to_csv(index=False)
    key = digest("plots", code_version(), importlib.metadata.version("matplotlib"), table, data.metric, data.swept)
    images = cache.get_files(NAMESPACE, key)
    if images is not None:
        return [write_bytes(out_dir / name, png) for name, png in images.items()]
    from rag_bench.report.sweep.plots import make_plots

    written = make_plots(data, out_dir)
    cache.put_files(NAMESPACE, key, {p.name: p.read_bytes() for p in written})
    return written


def _dataset_state(point: Path) -> str | None:
    """The fingerprint of the dataset folder a point's config names, as it is now (None: it cannot be found)."""
    from rag_bench.data.dataset import DatasetConfig
    from rag_bench.run_folder.fingerprint import folder_hash

    try:
        folder = DatasetConfig(*RunFolder(point).dataset_settings()).folder
        return folder_hash(folder) if folder.is_dir() else None
    except (RagBenchError, OSError):
        return None
