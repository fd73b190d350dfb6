"""Launcher presets without daemons: composition, typed schemas, environment and folder for workers, failures."""

import os
import subprocess
import sys

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

from rag_bench.config.schema import register
from rag_bench.core.cache import default_cache_dir
from rag_bench.core.paths import project_folder
from rag_bench.launch.failure import SweepStopped, describe, reporting
from rag_bench.launch.presets import forwarded_environment, ray_worker_setup

SUBMITIT_MESSAGE = (
    "Job 7_1 (task: 0) with path /data/sweep/.submitit/7_1/7_1_0_result.pkl has not produced any output "
    "(state: FAILED)\nError stream produced:\n----\nsrun: error: node1: task 0: Killed"
)


def launcher_config(choice: str, cwd, monkeypatch) -> dict:
    """The composed, resolved ``hydra.launcher`` for ``hydra/launcher=choice``, as the driver resolves it."""
    from omegaconf import OmegaConf

    register()
    monkeypatch.chdir(cwd)
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(project_folder("configs")), version_base="1.3"):
        cfg = compose(config_name="config", overrides=[f"hydra/launcher={choice}"], return_hydra_config=True)
    return OmegaConf.to_container(cfg.hydra.launcher, resolve=True)


def test_slurm_preset_runs_jobs_in_the_drivers_folder_with_its_cache(tmp_path, monkeypatch):
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    monkeypatch.setenv("RAG_BENCH_CACHE", "relative-cache")
    launcher = launcher_config("submitit_slurm", tmp_path, monkeypatch)
    assert launcher["_target_"] == "hydra_plugins.rag_bench_launchers.slurm.SlurmLauncher"
    assert launcher["setup"] == [f"export RAG_BENCH_CACHE={tmp_path / 'relative-cache'}", f"cd {tmp_path}"]
    assert (launcher["cpus_per_task"], launcher["mem_gb"], launcher["partition"]) == (2, 4, None)


def test_ray_preset_sends_the_cache_and_folder_and_injects_no_object_store_size(tmp_path, monkeypatch):
    pytest.importorskip("hydra_plugins.hydra_ray_launcher")
    monkeypatch.delenv("RAG_BENCH_CACHE", raising=False)
    launcher = launcher_config("ray", tmp_path, monkeypatch)
    init = launcher["ray"]["init"]
    assert launcher["_target_"] == "hydra_plugins.rag_bench_launchers.ray.RayLauncher"
    assert init["runtime_env"]["env_vars"] == {
        "RAG_BENCH_CACHE": str(default_cache_dir().resolve()),
        "RAG_BENCH_WORKDIR": str(tmp_path),
    }
    assert "object_store_memory" in init and init["object_store_memory"] is None  # setdefault leaves it unset
    assert launcher["ray"]["remote"] == {"num_cpus": 2, "max_retries": 0}


@pytest.mark.parametrize(
    ("choice", "key", "schema", "plugin"),
    [
        ("submitit_slurm", "hydra.launcher.partiton=cpu", "SlurmQueueConf", "hydra_plugins.hydra_submitit_launcher"),
        ("ray", "hydra.launcher.ray.remote_opts=1", "RayConf", "hydra_plugins.hydra_ray_launcher"),
    ],
)
def test_a_misspelt_launcher_key_fails_in_one_line(choice, key, schema, plugin, tmp_path):
    pytest.importorskip(plugin)
    done = subprocess.run(
        [sys.executable, "-m", "rag_bench", f"hydra/launcher={choice}", key, "--cfg", "hydra"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    name = key.split("=")[0].rsplit(".", 1)[1]
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"rag-bench: error: Could not override '{key.split('=')[0]}'. Key '{name}' not in '{schema}'"
    ]


def test_only_set_variables_are_forwarded_to_ray_workers(monkeypatch):
    for name in ("VOYAGE_API_KEY_PATH", "ANTHROPIC_API_KEY", "RAG_BENCH_CLAIM_TIMEOUT", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("VOYAGE_API_KEY", "pa-secret")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "")
    assert forwarded_environment() == {"VOYAGE_API_KEY": "pa-secret"}


def test_a_ray_worker_moves_to_the_drivers_folder(tmp_path, monkeypatch):
    elsewhere = tmp_path / "raylet"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("RAG_BENCH_WORKDIR", str(tmp_path))
    ray_worker_setup()
    assert os.getcwd() == str(tmp_path)
    monkeypatch.setenv("RAG_BENCH_WORKDIR", str(tmp_path / "gone"))  # not on this node: stay put
    ray_worker_setup()
    assert os.getcwd() == str(tmp_path)


def test_a_failed_submitit_job_is_described_by_its_id_state_and_log():
    assert describe(RuntimeError(SUBMITIT_MESSAGE)) == (
        "job 7_1 has not produced any output (state: FAILED) (its log: /data/sweep/.submitit/7_1/7_1_0_log.err)"
    )
    assert (
        describe(ValueError("\n  The worker died unexpectedly.\nmore")) == "ValueError: The worker died unexpectedly."
    )


def test_reporting_turns_listed_failures_into_one_line_and_lets_others_through():
    def fail(exc):
        raise exc

    with pytest.raises(SweepStopped) as stopped:
        reporting("SLURM", "/data/sweep", (RuntimeError,), lambda: fail(RuntimeError(SUBMITIT_MESSAGE)))
    assert str(stopped.value) == (
        "sweep /data/sweep stopped on SLURM: job 7_1 has not produced any output (state: FAILED) "
        "(its log: /data/sweep/.submitit/7_1/7_1_0_log.err). The points that finished are kept: "
        "rerun the same command to compute the others, reusing what the cache holds"
    )
    with pytest.raises(KeyError):
        reporting("SLURM", "/data/sweep", (RuntimeError,), lambda: fail(KeyError("a bug stays a bug")))
    assert reporting("Ray", "x", (RuntimeError,), lambda: [1, 2]) == [1, 2]
