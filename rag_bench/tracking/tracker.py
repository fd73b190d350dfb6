"""``Tracker``: what tracking=mlflow does for a run or a sweep, used by the Hydra callback and the Python API.

A sweep gets a parent run named after its folder when it starts (its id kept in the sweep folder, ``PARENT``,
so that points run by other processes find it: joblib, SLURM); each point is a child run logged when it
ends (``log.log_run``); the parent gets the sweep's summary.csv, report and winner.overrides when the sweep
ends. A failure to log is one warning: the run's own results are kept either way.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from rag_bench.tracking.log import DEFAULT_EXPERIMENT, client, experiment_id, log_run, require_mlflow, store_uri

log = logging.getLogger(__name__)

PARENT = ".mlflow-parent-run"  # in the sweep folder: the parent run's id
SWEEP_FILES = ("summary.csv", "report.md", "report.html", "winner.overrides")
SETTINGS = {"tracking.uri": "uri", "tracking.experiment": "experiment"}


class Tracker:
    """Logs runs and sweeps to the MLflow store ``uri`` (``log.store_uri``), experiment ``experiment``.

    A ConfigError naming the pip command when mlflow is not installed.
    """

    def __init__(self, uri: str | None = None, experiment: str | None = None) -> None:
        require_mlflow()
        logging.getLogger("mlflow").setLevel(logging.WARNING)  # its database set-up notes
        logging.getLogger("alembic").setLevel(logging.WARNING)
        self.uri, self.experiment = store_uri(uri), experiment or DEFAULT_EXPERIMENT

    def start_sweep(self, folder: Path) -> None:
        """Create the sweep's parent run and keep its id in ``folder``."""
        from rag_bench.core.files import write_text

        try:
            mlflow = client(self.uri)
            tags = {"rag_bench.sweep": str(folder.resolve())}
            parent = mlflow.create_run(experiment_id(mlflow, self.experiment), run_name=folder.as_posix(), tags=tags)
            write_text(folder / PARENT, parent.info.run_id)
        except Exception as exc:  # noqa: BLE001 - tracking must not stop a sweep
            log.warning("MLflow: sweep not logged to %s (%s)", self.uri, _line(exc))

    def log_run(self, folder: Path, overrides: Sequence[str], sweep: Path | None = None, num: int = 0) -> None:
        """Log the run folder ``folder``: a run of its own, or point ``num`` under ``sweep``'s parent run."""
        tags = {"rag_bench.overrides": " ".join(overrides)[:5000]}
        name = folder.as_posix()
        if sweep is not None:
            parent = parent_run(sweep)
            name = f"point {num}"
            tags |= {"rag_bench.point": str(num), **({"mlflow.parentRunId": parent} if parent else {})}
        try:
            mlflow = client(self.uri)
            log_run(mlflow, experiment_id(mlflow, self.experiment), folder, name, tags)
        except Exception as exc:  # noqa: BLE001 - the run's results are written; tracking must not lose them
            log.warning("MLflow: %s not logged to %s (%s)", folder, self.uri, _line(exc))

    def end_sweep(self, folder: Path) -> None:
        """Give the parent run the sweep's report files and end it."""
        parent = parent_run(folder)
        if parent is None:
            return
        try:
            mlflow = client(self.uri)
            for name in SWEEP_FILES:
                if (folder / name).is_file():
                    mlflow.log_artifact(parent, str(folder / name))
            mlflow.set_terminated(parent)
        except Exception as exc:  # noqa: BLE001
            log.warning("MLflow: the sweep's report not logged to %s (%s)", self.uri, _line(exc))


def tracker_for(overrides: Sequence[str]) -> Tracker | None:
    """The Tracker that ``tracking=mlflow [tracking.uri=...] [tracking.experiment=...]`` among ``overrides`` asks
    for (the Python API reads them as the command line's callback gets them), else None."""
    chosen, settings = None, {}
    for override in overrides:
        key, _, value = override.partition("=")
        value = value.strip("'\"")
        if key.lstrip("+") == "tracking":
            chosen = value
        elif key in SETTINGS:
            settings[SETTINGS[key]] = None if value == "null" else value
    return Tracker(**settings) if chosen == "mlflow" else None


def parent_run(folder: Path) -> str | None:
    path = folder / PARENT
    return (path.read_text(encoding="utf-8").strip() or None) if path.is_file() else None


def _line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"
