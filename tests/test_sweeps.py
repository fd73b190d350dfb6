"""Real Hydra multiruns: launchers, resumed sweeps, the Optuna sweeper, reuse across points."""

import json
import os
import subprocess
import sys

import pandas as pd
import pytest

POINTS = ["chunker.size=300,600", "retrieval=bm25,hybrid"]


def multirun(tmp_path, sweep_dir, *overrides):
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "rag_bench",
            "-m",
            "dataset=annual-report",
            "embedder=fake",
            *overrides,
            f"hydra.sweep.dir={sweep_dir}",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def summary(sweep_dir):
    table = pd.read_csv(sweep_dir / "summary.csv")
    metric_columns = [c for c in table.columns if c.startswith(("recall@", "ndcg@", "coverage@"))]
    return table.sort_values(["chunker.size", "retrieval"]).reset_index(drop=True)[metric_columns + ["chunks"]]


@pytest.mark.slow
def test_joblib_launcher_gives_the_basic_launchers_table(tmp_path):
    multirun(tmp_path, tmp_path / "basic", *POINTS)
    multirun(tmp_path, tmp_path / "joblib", *POINTS, "hydra/launcher=joblib", "hydra.launcher.n_jobs=2")
    pd.testing.assert_frame_equal(summary(tmp_path / "basic"), summary(tmp_path / "joblib"))
    assert len(summary(tmp_path / "basic")) == 4


@pytest.mark.slow
def test_submitit_local_launcher_runs_points_as_jobs(tmp_path):
    multirun(
        tmp_path,
        tmp_path / "submitit",
        "chunker.size=300,600",
        "hydra/launcher=submitit_local",
        "hydra.launcher.timeout_min=5",
    )
    assert len(list((tmp_path / "submitit").glob("*/metrics.json"))) == 2


@pytest.mark.slow
def test_rerun_into_the_same_folder_skips_finished_points_and_reuses_work(tmp_path):
    first = multirun(tmp_path, tmp_path / "sweep", *POINTS)
    assert "skipped" not in first.stdout
    points = [json.loads(p.read_text()) for p in sorted((tmp_path / "sweep").glob("*/metrics.json"))]
    # the two bm25 points and the two hybrid points of one chunk size share chunks; bm25 points embed nothing
    assert [p["stats"]["embedded"] > 0 for p in points] == [False, True, False, True]
    second = multirun(tmp_path, tmp_path / "sweep", *POINTS)
    assert second.stdout.count("skipped:") == 4


@pytest.mark.slow
def test_optuna_sweeper_maximises_the_objective(tmp_path):
    pytest.importorskip("hydra_plugins.hydra_optuna_sweeper")
    multirun(tmp_path, tmp_path / "optuna", "sweep=optuna", "hydra.sweeper.n_trials=2")
    best = (tmp_path / "optuna" / "optimization_results.yaml").read_text()
    assert "best_value" in best and len(list((tmp_path / "optuna").glob("*/metrics.json"))) == 2


LEAK_SWEEP = """# @package _global_
defaults:
  - override /hydra/sweeper: optuna
hydra:
  mode: MULTIRUN
  sweeper:
    direction: maximize
    n_trials: 2
    sampler:
      seed: 0
    params:
      retrieval.filter_mode: choice(pre, none)
"""


@pytest.mark.slow
def test_optuna_minimises_a_lower_is_better_objective(tmp_path):
    # kestrel-kb's filtered questions leak 0 with filters applied (pre) and 0.357 at k=10 without them (none);
    # the sweeper maximises the returned objective, so leak@10 comes back negated and pre wins
    pytest.importorskip("hydra_plugins.hydra_optuna_sweeper")
    (tmp_path / "extra" / "sweep").mkdir(parents=True)
    (tmp_path / "extra" / "sweep" / "leak.yaml").write_text(LEAK_SWEEP)
    search = f"hydra.searchpath=[file://{tmp_path / 'extra'}]"
    multirun(tmp_path, tmp_path / "optuna", "dataset=kestrel-kb", "retrieval=bm25", "objective=leak@10", search,
             "sweep=leak")  # fmt: skip
    leaks = {json.loads((p / "metrics.json").read_text())["config"]["retrieval"]["filter_mode"]:
             json.loads((p / "metrics.json").read_text())["metrics"]["leak@10"]
             for p in (tmp_path / "optuna").glob("[0-9]*")}  # fmt: skip
    assert set(leaks) == {"pre", "none"} and leaks["pre"] == 0.0 < leaks["none"]
    best = (tmp_path / "optuna" / "optimization_results.yaml").read_text()
    assert "retrieval.filter_mode: pre" in best and "best_value: -0.0" in best
