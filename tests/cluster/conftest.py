"""Engine fixtures: a real one-node SLURM cluster and a real local Ray cluster, one of each per test session.

They start real daemons, so they run only when ``RAG_BENCH_ENGINE_TESTS=1`` (``.ci/cluster`` sets it
after installing Debian's slurm-wlm, slurmdbd, munge and mariadb-server and the ``distributed``
extra); otherwise every engine test is skipped with the reason. With the variable set, a missing
program or plugin is an error, so CI cannot pass by skipping.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from daemons import SLURM_PROGRAMS, RayCluster, SlurmCluster, missing_programs  # noqa: E402

ENABLE = "RAG_BENCH_ENGINE_TESTS"


def _require(what: str, missing: list[str]) -> None:
    if not missing:
        return
    if os.environ.get(ENABLE) == "1":
        pytest.fail(f"{ENABLE}=1 but {what} missing: {', '.join(missing)} (run .ci/cluster)", pytrace=False)
    pytest.skip(f"{what} not installed: {', '.join(missing)} (bash .ci/cluster installs them and runs these tests)")


@pytest.fixture(scope="session", autouse=True)
def engines_enabled():
    if os.environ.get(ENABLE) != "1":
        pytest.skip(f"engine tests start SLURM and Ray daemons: set {ENABLE}=1 or run bash .ci/cluster")
    if os.geteuid() != 0:
        pytest.skip("the one-node SLURM cluster runs its daemons as root")


@pytest.fixture(scope="session")
def slurm(tmp_path_factory):
    """A running one-node SLURM cluster (2 jobs at a time on 2 CPUs); yields it, then stops every daemon."""
    _require("SLURM programs", missing_programs(SLURM_PROGRAMS))
    _require("the submitit launcher", [] if importlib.util.find_spec("submitit") else ["hydra-submitit-launcher"])
    with SlurmCluster(tmp_path_factory.mktemp("slurm")) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def ray_cluster(tmp_path_factory):
    """A running Ray head on 127.0.0.1 whose raylet has another folder and a decoy cache in its environment."""
    _require("the Ray launcher", [] if importlib.util.find_spec("hydra_plugins.hydra_ray_launcher") else ["ray"])
    folder = tmp_path_factory.mktemp("ray")
    home = folder / "raylet-home"
    home.mkdir()
    cluster = RayCluster(folder)
    try:
        # workers inherit the raylet's environment and folder: the launcher preset must override both
        cluster.start(worker_env={"RAG_BENCH_CACHE": str(folder / "decoy-cache")}, cwd=home)
        cluster.decoy = folder / "decoy-cache"
        cluster.home = home
        yield cluster
    finally:
        cluster.stop()
