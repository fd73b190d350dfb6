"""The embedded server lets in only who holds the cache's password: its socket folder is made afresh (never one
another local user made first), every connection is asked for the password (scram-sha-256), and a data directory
an older rag-bench left open to every local connection (trust) is made afresh."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from .conftest import needs_pg, new_cache, stop_embedded

pytestmark = [pytest.mark.db, needs_pg]


def _trusting_cluster(root: Path) -> None:
    """A data directory as rag-bench made it before, where the server will look for it (under root, the
    runtime folder when the cache or the programs are out of the server user's reach): every local
    connection trusted, no password."""
    from rag_bench.index.postgres.files import SUPERUSER, owner_ids, run_as, server_files
    from rag_bench.index.postgres.private import layout

    place = layout(server_files(root))
    pgdata = place.pgdata
    pgdata.mkdir(parents=True, mode=0o700)
    uid, gid = owner_ids()
    if uid is not None:
        os.chown(pgdata, uid, gid)
    initdb = str(place.programs / "initdb")
    args = [initdb, "-D", str(pgdata), "-U", SUPERUSER, "--auth=trust", "--locale=C", "--no-instructions"]
    subprocess.run(args, check=True, capture_output=True, **run_as())


def test_only_the_password_in_the_cache_opens_the_server(tmp_path, monkeypatch):
    import psycopg

    from rag_bench.index.postgres.files import DATABASE, SUPERUSER, owner_ids, server_files
    from rag_bench.index.postgres.private import layout
    from rag_bench.index.postgres.server import embedded_dsn

    monkeypatch.delenv("PGPASSWORD", raising=False)
    cache = new_cache()
    root = (cache / "pgvector").resolve()
    root.mkdir(parents=True, exist_ok=True)
    _trusting_cluster(root)
    # the socket folder's name before: predictable, and taken as it was when it existed
    squatted = Path(tempfile.gettempdir()) / f"rag-bench-pg-{hashlib.sha256(str(root).encode()).hexdigest()[:12]}"
    squatted.mkdir()
    squatted.chmod(0o777)
    try:
        dsn = embedded_dsn(root)
        sockets = Path(json.loads((root / "server.json").read_text())["socket_dir"])
        assert sockets != squatted and list(squatted.iterdir()) == []
        info = os.lstat(sockets)
        server_uid = os.geteuid() if owner_ids()[0] is None else owner_ids()[0]
        assert stat.S_ISDIR(info.st_mode) and info.st_uid == server_uid and stat.S_IMODE(info.st_mode) == 0o700
        assert stat.S_IMODE((root / "password").stat().st_mode) == 0o600
        assert "password=" not in dsn and f"passfile={root / 'password'}" in dsn
        pgdata = layout(server_files(root)).pgdata  # where the server keeps it (under root: maybe the runtime folder)
        rules = [line.split() for line in (pgdata / "pg_hba.conf").read_text().splitlines()]
        rules = [rule for rule in rules if rule and not rule[0].startswith("#")]
        assert {rule[0] for rule in rules} == {"local", "host"}
        assert all(rule[-1] == "scram-sha-256" for rule in rules)
        stranger = {"host": str(sockets), "user": SUPERUSER, "dbname": DATABASE, "connect_timeout": 5}
        stranger["passfile"] = str(tmp_path / "no-such-file")
        with pytest.raises(psycopg.OperationalError, match="no password supplied"):
            psycopg.connect(**stranger).close()
        with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
            psycopg.connect(**stranger, password="guess").close()
        with psycopg.connect(dsn) as conn:  # the DSN names the password file
            assert conn.execute("SELECT current_user").fetchone() == (SUPERUSER,)
    finally:
        left = stop_embedded(cache)
        shutil.rmtree(squatted, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
        assert not left
    assert not sockets.exists()  # removed with the server


def test_socket_folders_are_new_and_private_each_time():
    from rag_bench.index.postgres.files import owner_ids
    from rag_bench.index.postgres.private import is_private, socket_folder

    made = [socket_folder(), socket_folder()]
    try:
        owner = os.geteuid() if owner_ids()[0] is None else owner_ids()[0]
        assert made[0] != made[1] and all(is_private(folder, owner, 0o700) for folder in made)
    finally:
        for folder in made:
            shutil.rmtree(folder)
