"""Sweeps on real engines: SLURM (submitit, accounting on) and Ray, each sharing one cache between concurrent jobs.

Each engine must give the basic launcher's summary table, embed every text once across concurrent jobs,
fail a sweep whose job was killed hard mid-embedding with a clear message in bounded time (and finish
it when rerun, from the cache), and write the sweep report once, after every job.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from rag_bench.core.cache import DiskCache
from rag_bench.embed.claims import Holder
from rag_bench.embed.store import stored_keys
from rag_bench.report.sweep.work import RUN_WORK
from rag_bench.testing.voyage_server import FakeVoyageServer

pytestmark = pytest.mark.cluster

POINTS = ["chunker.size=300,600", "retrieval.k_rrf=30,60"]  # points 0 and 1 need the same texts at the same time
# how a point was computed, not what it measured: which job embedded (and was billed for) a text shared between points
RUN_SPECIFIC = [*RUN_WORK, "latency_ms_p95"]
ENGINES = {
    "slurm": ["hydra/launcher=submitit_slurm", "hydra.launcher.cpus_per_task=1", "hydra.launcher.mem_gb=1",
              "hydra.launcher.timeout_min=10"],
    "ray": ["hydra/launcher=ray", "hydra.launcher.ray.remote.num_cpus=1"],
}  # fmt: skip
SWEEP_TIMEOUT_S = 300
EMBED_DELAY_S = 0.5  # jobs that embed in a fraction of a second start and end before SLURM starts their neighbour
VOYAGE_ENV = {"VOYAGE_API_KEY": "test-key"}


def sweep(folder: Path, cache: Path, env: dict[str, str], *overrides: str, check: bool = True):
    """``rag-bench -m`` in ``folder`` (the sweep folder relative to it) with ``RAG_BENCH_CACHE=cache``."""
    done = subprocess.run(
        [sys.executable, "-m", "rag_bench", "-m", "dataset=annual-report", *overrides],
        cwd=folder,
        env={**os.environ, **env, "RAG_BENCH_CACHE": str(cache)},
        capture_output=True,
        text=True,
        timeout=SWEEP_TIMEOUT_S,
    )
    if check:
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def engine_env(engine: str, request) -> dict[str, str]:
    cluster = request.getfixturevalue("slurm" if engine == "slurm" else "ray_cluster")
    return cluster.env


def summary(sweep_dir: Path) -> pd.DataFrame:
    table = pd.read_csv(sweep_dir / "summary.csv")
    return table.drop(columns=RUN_SPECIFIC).sort_values("point").reset_index(drop=True)


def points(sweep_dir: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(sweep_dir.glob("*/metrics.json"))]


def overlapping(sweep_dir: Path) -> int:
    """The most points that were running at one moment (from .hydra/ written at start, metrics.json at end)."""
    spans = [((p / ".hydra").stat().st_mtime, (p / "metrics.json").stat().st_mtime) for p in sweep_dir.glob("[0-9]*")]
    return max(sum(start <= t < end for start, end in spans) for t, _ in spans)


@pytest.fixture(scope="module")
def slow_voyage():
    """A fake Voyage API that takes EMBED_DELAY_S per batch, so each job runs for seconds, not a fraction of one."""
    with FakeVoyageServer(api_key="test-key", delay_s=EMBED_DELAY_S) as server:
        yield [f"embedder.base_url={server.url}", "embedder.batch_size=32", "embedder.concurrency=1"]


@pytest.fixture(scope="module")
def basic_sweep(tmp_path_factory, slow_voyage) -> Path:
    """The sweep folder of POINTS run by the basic launcher (one process), the reference for every engine."""
    folder = tmp_path_factory.mktemp("basic")
    sweep(folder, folder / "cache", VOYAGE_ENV, "embedder=voyage", *slow_voyage, *POINTS, "hydra.sweep.dir=sweep")
    return folder / "sweep"


@pytest.fixture(scope="module")
def basic(basic_sweep) -> pd.DataFrame:
    return summary(basic_sweep)


def billed(sweep_dir: Path) -> float:
    """Tokens billed over the whole sweep: each text once, whichever job embedded it."""
    return pd.read_csv(sweep_dir / "summary.csv")["tokens"].sum()


@pytest.mark.parametrize("engine", list(ENGINES))
def test_sweep_equals_the_basic_launchers_and_embeds_each_text_once(
    engine, basic, basic_sweep, slow_voyage, tmp_path, request
):
    env = {**engine_env(engine, request), **VOYAGE_ENV}
    engine_args = [*slow_voyage, *POINTS, *ENGINES[engine], "hydra.sweep.dir=sweep"]
    done = sweep(tmp_path, tmp_path / "cache", env, "embedder=voyage", *engine_args)
    out = tmp_path / "sweep"  # relative to the driver's folder, wherever the engine starts its jobs
    pd.testing.assert_frame_equal(summary(out), basic)  # every metric column, intervals and significance marks
    assert len(basic) == 4
    embedded = sum(p["stats"]["embedded"] for p in points(out))
    keys = stored_keys(DiskCache(tmp_path / "cache"))
    assert embedded == len(keys) == len(set(keys)) > 0  # no text embedded twice across the concurrent jobs
    assert billed(out) == billed(basic_sweep) > 0
    assert overlapping(out) >= 2  # two jobs at a time
    assert done.stderr.count("sweep report:") + done.stdout.count("sweep report:") == 1
    report = (out / "summary.csv").stat().st_mtime
    assert all(report >= (p / "metrics.json").stat().st_mtime for p in out.glob("[0-9]*"))  # after every job
    if engine == "ray":
        assert not request.getfixturevalue("ray_cluster").decoy.exists()  # the raylet's own cache went unused
        assert not list(request.getfixturevalue("ray_cluster").home.iterdir())  # nothing written in its folder


@pytest.mark.parametrize("engine", list(ENGINES))
def test_a_job_killed_mid_embedding_fails_the_sweep_and_a_rerun_finishes_it(engine, basic, tmp_path, request):
    env = engine_env(engine, request)
    cache = tmp_path / "cache"
    with FakeVoyageServer(api_key="test-key", delay_s=1.0) as voyage:  # one second per batch of texts
        voyage_args = ["embedder=voyage", f"embedder.base_url={voyage.url}", "embedder.batch_size=32"]
        args = [
            *voyage_args,
            "embedder.concurrency=1",
            "chunker.size=300,600",
            *ENGINES[engine],
            "hydra.sweep.dir=sweep",
        ]
        env = {**env, **VOYAGE_ENV}
        driver = subprocess.Popen(
            [sys.executable, "-m", "rag_bench", "-m", "dataset=annual-report", *args],
            cwd=tmp_path,
            env={**os.environ, **env, "RAG_BENCH_CACHE": str(cache)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            victim = wait_for_holder(cache, driver, after_batches=1)  # a job holding claims, one batch committed
            os.kill(victim, signal.SIGKILL)
            killed = time.monotonic()
            out, err = driver.communicate(timeout=SWEEP_TIMEOUT_S)
        finally:
            driver.kill()
            driver.communicate()
        failed_after = time.monotonic() - killed
        assert driver.returncode != 0 and failed_after < 120
        message = [line for line in err.splitlines() if line.startswith("rag-bench: error:")]
        assert len(message) == 1 and "Traceback" not in err, err[-3000:]
        assert "sweep" in message[0] and "rerun" in message[0], message[0]
        assert not (tmp_path / "sweep" / "summary.csv").exists()  # no report of a sweep that did not finish
        wait_idle(cache, request.getfixturevalue("slurm") if engine == "slurm" else None)
        before = len(set(stored_keys(DiskCache(cache))))
        assert before > 0  # the killed job's committed batches (and the other job's work) are in the cache
        rerun_at = time.time()
        again = sweep(tmp_path, cache, env, *args)
    # a point the first run finished is skipped (its job prints so in its own log): its metrics.json is older
    recomputed = [p for p in (tmp_path / "sweep").glob("[0-9]*") if (p / "metrics.json").stat().st_mtime > rerun_at]
    embedded = sum(json.loads((p / "metrics.json").read_text())["stats"]["embedded"] for p in recomputed)
    keys = stored_keys(DiskCache(cache))
    assert len(keys) == len(set(keys))  # the killed job's batch in flight was never committed; nothing twice
    assert len(keys) - before == embedded < len(keys)  # the rerun embedded only what the cache lacked
    assert 1 <= len(recomputed) <= 2
    assert len(points(tmp_path / "sweep")) == 2 and (tmp_path / "sweep" / "summary.csv").exists()
    assert again.stdout.count("sweep report:") + again.stderr.count("sweep report:") == 1


def wait_idle(cache: Path, slurm=None, timeout: float = 120) -> None:
    """Wait until no job of a failed sweep still runs: SLURM's queue is empty, no live process holds a claim."""

    def idle() -> bool:
        if slurm is not None and slurm.queue():
            return False
        holders = []
        for claim in (cache / "claims").rglob("*"):
            try:
                holders.append(Holder.parse(claim.read_text()))
            except (FileNotFoundError, IsADirectoryError):
                continue
        return all(h is None or h.dead() for h in holders)

    deadline = time.monotonic() + timeout
    while not idle():
        assert time.monotonic() < deadline, "the failed sweep's jobs did not end"
        time.sleep(0.2)


def wait_for_holder(cache: Path, driver: subprocess.Popen, after_batches: int, timeout: float = 120) -> int:
    """The PID of a job that holds a claim once ``after_batches`` vector batches are committed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if driver.poll() is not None:
            out, err = driver.communicate()
            raise AssertionError(f"the sweep ended before any job was killed: {out[-2000:]}{err[-2000:]}")
        batches = [p for p in (cache / "vectors").rglob("*") if p.is_file() and not p.name.startswith(".tmp-")]
        claims = [p for p in (cache / "claims").rglob("*") if p.is_file() and not p.name.endswith(".break")]
        for claim in claims if len(batches) >= after_batches else []:
            try:
                holder = Holder.parse(claim.read_text())
            except FileNotFoundError:
                continue
            if holder is not None:
                return holder.pid
        time.sleep(0.05)
    raise AssertionError(f"no job held a claim after {after_batches} batches within {timeout} s")


def test_writer_jobs_on_slurm_embed_each_text_once(slurm, tmp_path):
    """Four SLURM jobs (two at a time) embed overlapping shares of 500 texts into one cache namespace."""
    texts = [f"passage {i} about topic {i % 7}" for i in range(500)]
    (tmp_path / "texts.json").write_text(json.dumps(texts))
    (tmp_path / "go").touch()  # writers start as soon as SLURM starts them
    writer = Path(__file__).parents[1] / "embed" / "claim_writer.py"
    script = (
        f"{sys.executable} {writer} {tmp_path / 'cache'} {tmp_path / 'texts.json'} $SLURM_ARRAY_TASK_ID "
        f"$((SLURM_ARRAY_TASK_ID % 2)) {tmp_path}/log-$SLURM_ARRAY_TASK_ID {tmp_path / 'go'} 0.02"
    )
    env = {**os.environ, **slurm.env}
    submitted = subprocess.run(
        ["sbatch", "--parsable", "--array=0-3", "--cpus-per-task=1", f"--output={tmp_path}/out-%a", "--wrap", script],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    job = submitted.stdout.strip()

    def accounted() -> list[str]:
        sacct = ["sacct", "-j", job, "-X", "-n", "-P", "-o", "JobID,State,Start,End"]
        return subprocess.run(sacct, env=env, capture_output=True, text=True).stdout.split()

    deadline = time.monotonic() + 180
    while len(states := accounted()) < 4 or any(s.split("|")[1] in ("PENDING", "RUNNING") for s in states):
        assert time.monotonic() < deadline, f"writer jobs did not finish: {states}"
        time.sleep(0.5)
    assert [s.split("|")[1] for s in states] == ["COMPLETED"] * 4, states
    spans = [(s.split("|")[2], s.split("|")[3]) for s in states]  # ISO times sort as strings
    assert max(sum(start <= t < end for start, end in spans) for t, _ in spans) == 2, states  # two at a time
    results = [json.loads((tmp_path / f"out-{i}").read_text().strip().splitlines()[-1]) for i in range(4)]
    logs = [tmp_path / f"log-{i}" for i in range(4)]
    logged = [line for log in logs if log.exists() for line in log.read_text().splitlines() if line]
    assert len(logged) == len(set(logged)) == sum(r["embedded"] for r in results)  # no text embedded twice
    keys = stored_keys(DiskCache(tmp_path / "cache"))
    assert len(keys) == len(set(keys)) == len(logged) and DiskCache(tmp_path / "cache").corrupt == 0
    # each asked 410 texts, 400 distinct (ten twice): each distinct text embedded by this job or served to it
    assert all(r["embedded"] + r["cache_hits"] == 400 and r["n"] == 410 for r in results)
    assert sum(r["embedded"] > 0 for r in results) >= 2, results  # the work was shared between jobs
