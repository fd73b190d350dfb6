"""tracking=mlflow: runs and sweep points logged to a real local MLflow store (sqlite), read back with its client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rag_bench.tracking.log import metric_key, metric_values, param_text, store_uri

# MLflow's sqlite store asks SQLAlchemy for ``noload``, deprecated since SQLAlchemy 2.1 (MLflow's to change)
NOLOAD = "ignore:The ``noload`` loader strategy is deprecated"

INSTALL_LINE = (
    "rag-bench: error: tracking=mlflow needs MLflow, which is not installed: pip install 'rag-bench[tracking]'"
)


def rag_bench_cli(*args: str, cwd: Path, env: dict | None = None, code: str | None = None):
    """``rag-bench ARGS`` in a fresh process (``code``: Python run first, in that process)."""
    environment = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    environment |= {"RAG_BENCH_CACHE": str(cwd / "cache"), "RAG_BENCH_QUIET": "1", **(env or {})}
    script = f"{code or ''}\nimport sys\nfrom rag_bench.entry.cli import main\nmain(sys.argv[1:])"
    command = [sys.executable, "-c", script, *args]
    return subprocess.run(command, capture_output=True, text=True, env=environment, cwd=cwd, timeout=300)


def client(uri: str):
    from mlflow.tracking import MlflowClient

    return MlflowClient(tracking_uri=uri)


def runs_of(uri: str, experiment: str) -> dict[str, object]:
    """Run name -> run, every run of ``experiment``."""
    mlflow = client(uri)
    found = mlflow.get_experiment_by_name(experiment)
    assert found is not None, f"no experiment {experiment!r} in {uri}"
    return {run.info.run_name: run for run in mlflow.search_runs([found.experiment_id])}


def download(artifact_uri: str, folder: str) -> str:
    """An artifact's file, fetched by its URI (MlflowClient.download_artifacts of MLflow 3.0 asks the default store)."""
    from mlflow.artifacts import download_artifacts

    return download_artifacts(artifact_uri=artifact_uri, dst_path=folder)


def artifact_names(uri: str, run_id: str) -> set[str]:
    return {a.path for a in client(uri).list_artifacts(run_id)}


def test_metric_names_values_and_params_by_hand():
    payload = {
        "n_questions": 3,
        "metrics": {"recall@10": 0.5, "leak@5": None, "recall@1000chars": 0.25},
        "ci95": {"recall@10": [0.25, 0.75], "recall@1000chars": [None, None]},
        "stats": {"chunks": 12, "embedded": 7, "tokens": 0, "cost_usd": 0.0, "seconds": {"chunk": 0.5, "embed": 1.25}},
    }
    assert metric_key("ann_recall@20") == "ann_recall_at_20"
    assert metric_values(payload) == {
        "recall_at_10": 0.5,
        "recall_at_10_low": 0.25,
        "recall_at_10_high": 0.75,
        "recall_at_1000chars": 0.25,  # leak@5 unmeasured (null): left out, as are missing intervals
        "n_questions": 3.0,
        "chunks": 12.0,
        "embedded": 7.0,
        "tokens": 0.0,
        "cost_usd": 0.0,
        "seconds": 1.75,
    }
    assert [param_text(v) for v in (None, True, 400, 0.5, [1, 3], "bm25", "x" * 7000)] == [
        "null",
        "true",
        "400",
        "0.5",
        "[1, 3]",
        "bm25",
        "x" * 6000,
    ]


def test_the_store_is_the_setting_else_the_environment_else_sqlite_here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    assert store_uri(None) == f"sqlite:///{tmp_path / 'mlflow.db'}"
    assert store_uri("sqlite:///runs/m.db") == f"sqlite:///{tmp_path / 'runs' / 'm.db'}"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:5000")
    assert store_uri(None) == "http://127.0.0.1:5000"
    assert store_uri("sqlite:////abs/m.db") == "sqlite:////abs/m.db"


@pytest.mark.slow
@pytest.mark.filterwarnings(NOLOAD)
def test_a_sweep_logs_each_point_under_a_parent_run(tmp_path):
    uri = f"sqlite:///{tmp_path / 'store' / 'runs.db'}"
    (tmp_path / "store").mkdir()
    sweep = tmp_path / "sweep"
    args = ["-m", "tracking=mlflow", f"tracking.uri={uri}", "tracking.experiment=sizes", "retrieval=bm25"]
    done = rag_bench_cli(*args, "chunker.size=300,600", f"hydra.sweep.dir={sweep}", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    runs = runs_of(uri, "sizes")
    assert set(runs) == {sweep.as_posix(), "point 0", "point 1"}
    parent = runs[sweep.as_posix()]
    assert parent.info.status == "FINISHED"
    assert {"summary.csv", "report.md", "report.html", "winner.overrides"} <= artifact_names(uri, parent.info.run_id)
    for num, size in enumerate((300, 600)):
        run, folder = runs[f"point {num}"], sweep / str(num)
        metrics = json.loads((folder / "metrics.json").read_text())
        assert run.info.status == "FINISHED"
        assert run.data.tags["mlflow.parentRunId"] == parent.info.run_id
        assert run.data.tags["rag_bench.folder"] == str(folder)
        assert run.data.params["chunker.size"] == str(size)
        assert run.data.params["retrieval.mode"] == "bm25" and run.data.params["dataset.name"] == "kestrel-kb"
        assert run.data.metrics["recall_at_10"] == metrics["metrics"]["recall@10"]
        low, high = metrics["ci95"]["ndcg@10"]
        assert (run.data.metrics["ndcg_at_10_low"], run.data.metrics["ndcg_at_10_high"]) == (low, high)
        assert run.data.metrics["n_questions"] == metrics["n_questions"]
        stored = artifact_names(uri, run.info.run_id)
        assert stored == {"report.html", "metrics.json", "per_question.csv", "config.yaml"}
        copy = download(f"{run.info.artifact_uri}/per_question.csv", str(tmp_path / f"d{num}"))
        assert Path(copy).read_bytes() == (folder / "per_question.csv").read_bytes()
    assert (tmp_path / "store" / "mlartifacts").is_dir()  # a sqlite store's artifacts sit beside its database


@pytest.mark.slow
@pytest.mark.filterwarnings(NOLOAD)
def test_a_run_logs_to_the_environments_store_and_a_broken_store_only_warns(tmp_path):
    uri = f"sqlite:///{tmp_path / 'env.db'}"
    run_dir = tmp_path / "run"
    env = {"MLFLOW_TRACKING_URI": uri}
    done = rag_bench_cli("tracking=mlflow", "retrieval=bm25", f"hydra.run.dir={run_dir}", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    runs = runs_of(uri, "rag-bench")
    assert list(runs) == [run_dir.as_posix()]
    (logged,) = runs.values()
    assert "mlflow.parentRunId" not in logged.data.tags
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert logged.data.metrics["mrr_at_10"] == metrics["metrics"]["mrr@10"]
    assert not (tmp_path / "mlflow.db").exists()  # the environment's store, not the default one

    (tmp_path / "a-file").write_text("")  # a store that cannot be made: the run is kept, a warning says so
    broken = f"sqlite:///{tmp_path / 'a-file' / 'x.db'}"
    args = ["tracking=mlflow", f"tracking.uri={broken}", "retrieval=bm25", "hydra.run.dir=r2"]
    done = rag_bench_cli(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "r2" / "metrics.json").is_file()
    assert f"MLflow: {tmp_path / 'r2'} not logged to {broken} (" in done.stdout + done.stderr  # why: MLflow's words


@pytest.mark.slow
def test_without_mlflow_one_line_names_the_pip_command(tmp_path):
    block = "import sys; sys.modules['mlflow'] = None  # as if it were not installed"
    done = rag_bench_cli("tracking=mlflow", "retrieval=bm25", "hydra.run.dir=out", cwd=tmp_path, code=block)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [INSTALL_LINE]
    assert not (tmp_path / "out" / "metrics.json").exists()  # stopped before any work


@pytest.mark.slow
def test_a_tracking_setting_without_tracking_says_what_to_add(tmp_path):
    done = rag_bench_cli("tracking.uri=sqlite:///x.db", "retrieval=bm25", cwd=tmp_path)
    assert done.returncode == 2
    fix = "(fix: tracking.uri and tracking.experiment are settings of tracking=mlflow; add tracking=mlflow)"
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.strip().endswith(fix)


@pytest.mark.slow
@pytest.mark.filterwarnings(NOLOAD)
def test_the_python_api_logs_a_sweep_and_a_run_as_the_command_line_does(tmp_path):
    import rag_bench

    uri = f"sqlite:///{tmp_path / 'api.db'}"
    tracking = ["tracking=mlflow", f"tracking.uri={uri}", "tracking.experiment=notebook"]
    grid = {"chunker.size": [300, 600]}
    table = rag_bench.sweep(grid, "retrieval=bm25", *tracking, out=tmp_path / "sweep", cache_dir=tmp_path / "c")
    result = rag_bench.run("retrieval=bm25", *tracking, out=tmp_path / "run", cache_dir=tmp_path / "c")
    runs = runs_of(uri, "notebook")
    assert set(runs) == {(tmp_path / "sweep").as_posix(), "point 0", "point 1", (tmp_path / "run").as_posix()}
    parent = runs[(tmp_path / "sweep").as_posix()].info.run_id
    for num in (0, 1):
        point = runs[f"point {num}"]
        assert point.data.tags["mlflow.parentRunId"] == parent
        assert point.data.metrics["recall_at_10"] == table["recall@10"][num]
        assert point.data.params["chunker.size"] == str(grid["chunker.size"][num])
    assert "summary.csv" in artifact_names(uri, parent)
    alone = runs[(tmp_path / "run").as_posix()]
    assert alone.data.metrics["ndcg_at_10"] == result.metrics.loc["ndcg@10", "mean"]
    assert "mlflow.parentRunId" not in alone.data.tags


def test_the_python_api_without_mlflow_raises_before_any_work(tmp_path, monkeypatch):
    import rag_bench
    from rag_bench.core.errors import ConfigError

    monkeypatch.setitem(sys.modules, "mlflow", None)  # as if it were not installed
    with pytest.raises(ConfigError, match=r"^tracking=mlflow needs MLflow, which is not installed: pip install"):
        rag_bench.run("tracking=mlflow", "retrieval=bm25", out=tmp_path / "run", cache_dir=tmp_path / "c")
    assert not (tmp_path / "run").exists()
