"""The embedded server lives exactly as long as the commands using it: a run killed mid-build (Ctrl-C, SIGTERM or
SIGKILL) leaves no server process, no lock and no half-built table, and the next run works."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import alive, kill_left, needs_pg, new_cache, remove_runtime, wait_gone

pytestmark = [pytest.mark.db, needs_pg]
WORDS = ["gateway", "reboot", "watchdog", "firmware", "modbus", "telemetry", "ingest", "token", "rota", "hotel"]


@pytest.fixture(scope="module")
def big_dataset(tmp_path_factory):
    """About 16,000 chunks of 100 characters: an HNSW build that lasts long enough to be interrupted."""
    folder = tmp_path_factory.mktemp("big")
    with (folder / "documents.jsonl").open("w") as out:
        for d in range(200):
            text = " ".join(f"{WORDS[(d * 7 + i) % len(WORDS)]}{i % 97}" for i in range(1100))
            out.write(json.dumps({"id": f"d{d}", "text": text}) + "\n")
    question = {"id": "q", "question": "gateway0 reboot1", "evidence": [{"doc_id": "d0", "start": 0, "end": 80}]}
    (folder / "questions.jsonl").write_text(json.dumps(question) + "\n")
    return folder


def _command(dataset: Path, cache: Path, out: Path) -> list[str]:
    return [
        sys.executable, "-m", "rag_bench", f"dataset.path={dataset}", "embedder=fake", "chunker=fixed",
        "chunker.size=100", "chunker.overlap=0", "retrieval=dense", "retrieval.index=pgvector",
        "retrieval.index.m=24", "retrieval.index.ef_construction=200", f"cache_dir={cache}", f"hydra.run.dir={out}",
    ]  # fmt: skip


def _building(root: Path, deadline: float) -> dict:
    """server.json once a COPY or CREATE INDEX of the run is in progress on its server."""
    import psycopg

    while time.monotonic() < deadline:
        try:
            info = json.loads((root / "server.json").read_text())
            with psycopg.connect(info["dsn"], autocommit=True, connect_timeout=5) as conn:
                rows = conn.execute("SELECT query FROM pg_stat_activity WHERE state = 'active'").fetchall()
            if any(q.startswith(("COPY rb_", "CREATE INDEX rb_")) for (q,) in rows):
                return info
        except (OSError, ValueError, psycopg.OperationalError):
            pass
        time.sleep(0.05)
    raise AssertionError("the run never reached its build")


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["ctrl-c", "term", "kill"])
def test_killed_mid_build_leaves_nothing_behind(big_dataset, tmp_path, signum):
    cache = new_cache()
    root = cache / "pgvector"
    run = subprocess.Popen(_command(big_dataset, cache, tmp_path / "run"), stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)  # fmt: skip
    pids: list[int] = []
    try:
        info = _building(root, time.monotonic() + 240)
        pids = [info["supervisor_pid"], info["postgres_pid"]]
        run.send_signal(signum)
        run.wait(60)
        left = wait_gone(pids, 60)
        assert not left, f"processes {left} outlived the killed run"
        assert not (root / "pgdata" / "postmaster.pid").exists()  # a clean shutdown, not a stale lock
        assert not (root / "server.json").exists()
        assert not (tmp_path / "run" / "metrics.json").exists()
        done = subprocess.run(_command(big_dataset, cache, tmp_path / "again"), capture_output=True, text=True,
                              timeout=600)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        sql = (tmp_path / "again" / "pgvector.sql").read_text()
        assert "CREATE TABLE rb_" in sql and "CREATE INDEX rb_" in sql  # the interrupted build left nothing to reuse
    finally:
        if run.poll() is None:
            run.kill()
            run.wait(10)
        kill_left(pids)
        remove_runtime(cache)
        shutil.rmtree(cache, ignore_errors=True)


def test_a_finished_command_stops_the_server(tmp_path):
    """A client process that exits (normally) takes the server with it."""
    cache = new_cache()
    root = repr(str(cache / "pgvector"))
    code = (
        "import json; from pathlib import Path; from rag_bench.index.postgres.server import embedded_dsn, server_pids;"
        f"embedded_dsn(Path({root})); print(json.dumps(server_pids(Path({root}))))"
    )
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        pids = json.loads(done.stdout.strip().splitlines()[-1])
        assert wait_gone(pids, 60) == []
        assert all(not alive(p) for p in pids) and os.listdir(cache / "pgvector" / "pgdata")
        assert not (cache / "pgvector" / "pgdata" / "postmaster.pid").exists()
    finally:
        remove_runtime(cache)
        shutil.rmtree(cache, ignore_errors=True)
