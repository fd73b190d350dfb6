"""Log a run folder to MLflow: its settings as params, its metrics as metrics, its files as artifacts.

Settings are config.yaml flattened (``chunker.size`` -> ``400``; lists as JSON). MLflow names may not hold
``@``, so a metric is logged as ``recall_at_10`` (``metric_key``), with its 95% interval as ``recall_at_10_low``
and ``recall_at_10_high`` (summary.csv's suffixes); beside them ``n_questions``, ``chunks``, ``embedded``,
``tokens``, ``cost_usd`` and ``seconds`` (the stages' total). Artifacts: report.html, metrics.json,
per_question.csv and config.yaml. The store is ``uri``, else ``$MLFLOW_TRACKING_URI``, else
``sqlite:///mlflow.db`` in the current folder, whose artifacts go to ``mlartifacts/`` beside the database.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from rag_bench.core.errors import ConfigError

DEFAULT_EXPERIMENT = "rag-bench"
INSTALL = "pip install 'rag-bench[tracking]'"
ARTIFACTS = ("report.html", "metrics.json", "per_question.csv", "config.yaml")
STATS = ("chunks", "embedded", "tokens", "cost_usd")
MAX_PARAM = 6000  # characters of a param value MLflow stores
BATCH = 100  # params (and tags) per log_batch call, MLflow's limit


def require_mlflow() -> None:
    """A ConfigError naming the pip command when the mlflow package is not installed."""
    try:
        import mlflow  # noqa: F401
    except ImportError:
        raise ConfigError(f"tracking=mlflow needs MLflow, which is not installed: {INSTALL}") from None


def store_uri(uri: str | None) -> str:
    """The tracking URI to log to (module docstring); a relative sqlite path made absolute."""
    chosen = uri or os.environ.get("MLFLOW_TRACKING_URI") or "sqlite:///mlflow.db"
    if chosen.startswith("sqlite:///") and not chosen.startswith("sqlite:////"):
        return f"sqlite:///{Path(chosen[len('sqlite:///') :]).resolve()}"
    return chosen


def client(uri: str):
    from mlflow.tracking import MlflowClient

    return MlflowClient(tracking_uri=uri)


def experiment_id(mlflow_client, name: str) -> str:
    """The id of experiment ``name``, created when missing (a sqlite store's artifacts beside its database)."""
    found = mlflow_client.get_experiment_by_name(name)
    if found is not None:
        return found.experiment_id
    uri = mlflow_client.tracking_uri
    location = None
    if uri.startswith("sqlite:///"):
        location = (Path(uri[len("sqlite:///") :]).parent / "mlartifacts").as_uri()
    try:
        return mlflow_client.create_experiment(name, artifact_location=location)
    except Exception:  # made meanwhile by another point's process
        found = mlflow_client.get_experiment_by_name(name)
        if found is None:
            raise
        return found.experiment_id


def log_run(mlflow_client, experiment: str, folder: Path, run_name: str, tags: dict[str, str] | None = None) -> str:
    """Log the run folder ``folder`` as one finished MLflow run; return its run id."""
    from mlflow.entities import Metric, Param

    from rag_bench.report.run.outputs import flatten
    from rag_bench.run_folder.read import RunFolder

    run = RunFolder(folder, needs=("metrics.json", "config.yaml"))
    payload = run.metrics
    created = mlflow_client.create_run(
        experiment, run_name=run_name, tags={"rag_bench.folder": str(Path(folder).resolve()), **(tags or {})}
    )
    run_id = created.info.run_id
    params = [Param(key, param_text(value)) for key, value in flatten(run.config).items()]
    now = int(time.time() * 1000)
    metrics = [Metric(key, value, now, 0) for key, value in metric_values(payload).items()]
    for start in range(0, len(params), BATCH):
        mlflow_client.log_batch(run_id, params=params[start : start + BATCH])
    for start in range(0, len(metrics), 1000):
        mlflow_client.log_batch(run_id, metrics=metrics[start : start + 1000])
    for name in ARTIFACTS:
        if (Path(folder) / name).is_file():
            mlflow_client.log_artifact(run_id, str(Path(folder) / name))
    mlflow_client.set_terminated(run_id)
    return run_id


def metric_key(name: str) -> str:
    """``recall@10`` -> ``recall_at_10``: an MLflow name (letters, digits, ``_-. :/``)."""
    return name.replace("@", "_at_")


def metric_values(payload: dict) -> dict[str, float]:
    """metrics.json's means and 95% intervals, and a few work counts, under MLflow names; unmeasured ones left out."""
    out: dict[str, float] = {}
    intervals = payload.get("ci95", {})
    for name, mean in payload.get("metrics", {}).items():
        low, high = intervals.get(name) or (None, None)
        for key, value in ((name, mean), (f"{name}_low", low), (f"{name}_high", high)):
            if _is_number(value):
                out[metric_key(key)] = float(value)
    stats = payload.get("stats", {})
    counted = {"n_questions": payload.get("n_questions"), **{k: stats.get(k) for k in STATS}}
    counted["seconds"] = sum(v for v in (stats.get("seconds") or {}).values() if _is_number(v))
    out.update({key: float(value) for key, value in counted.items() if _is_number(value)})
    return out


def param_text(value: object) -> str:
    """A setting as an MLflow param value: null, true/false, JSON lists and dicts, text cut at MLflow's limit."""
    if value is None or isinstance(value, bool):
        text = json.dumps(value)
    elif isinstance(value, list | dict):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = str(value)
    return text[:MAX_PARAM]


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value
