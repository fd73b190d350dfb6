"""The process that owns rag-bench's embedded PostgreSQL: it starts the server and stops it when no client is left.

``python -m rag_bench.index.postgres.supervisor ROOT`` (started by ``pg_server.embedded_dsn``, in its own
session so a Ctrl-C meant for the command does not reach it). Files under ROOT:

    pgdata/          the data directory (initdb'd once, atomically: built aside, then renamed)
    supervisor.lock  held exclusively by the one live supervisor
    clients.lock     held shared by every process using the server; the kernel drops a dead
                     process's lock, so a client that crashes or is killed still counts as gone
    server.json      written when the server accepts connections: pids, socket folder, DSN
    server.log       the server's and this process's messages
    password         the superuser's password for clients (``auth.py``), mode 0600
    runtime.json     under root, the runtime folder the server's user can reach (``private.py``)

The socket folder is made afresh for each start (``private.socket_folder``) and removed at the stop.

The server runs as this process's child with a parent-death signal (SIGINT, a fast shutdown),
so it stops even if the supervisor itself is killed. When the clients lock can be taken
exclusively, no client is left: the server is stopped, server.json removed, and the locks
released, supervisor.lock first, so a client waiting on clients.lock starts a fresh one.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from rag_bench.core.cache import atomic_write
from rag_bench.index.postgres.auth import (
    METHOD,
    client_dsn,
    client_password,
    initdb_pwfile,
    keep_for_clients,
    new_password,
    protected,
)
from rag_bench.index.postgres.files import DATABASE, SUPERUSER, owner_ids, run_as, server_files
from rag_bench.index.postgres.private import Layout, layout, socket_folder

POLL = 0.1  # seconds between looks at the clients lock
READY_TIMEOUT = 60.0
STOP_TIMEOUT = 30.0
PR_SET_PDEATHSIG = 1


def main(root: str) -> int:
    files = server_files(Path(root))
    files.root.mkdir(parents=True, exist_ok=True)
    supervisor = files.supervisor_lock.open("a")
    try:
        fcntl.flock(supervisor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return 0  # another supervisor owns this data directory
    stop = {"asked": False}
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: stop.update(asked=True))
    files.info.unlink(missing_ok=True)
    clients = files.clients_lock.open("a")
    log = files.log.open("a", encoding="utf-8")
    server = sockets = None
    try:
        place = layout(files)
        clear_stale_pid(place.pgdata, log)  # before init_data may make the data directory afresh
        init_data(place, files.passfile, log)
        sockets = socket_folder()
        server = start_server(place, sockets, log)
        wait_ready(server, sockets, files.passfile)
        info = {"supervisor_pid": os.getpid(), "postgres_pid": server.pid, "socket_dir": str(sockets)}
        info["dsn"] = client_dsn(sockets, files.passfile)
        atomic_write(files.info, lambda handle: handle.write(json.dumps(info).encode()))
        note(log, f"server ready (postgres pid {server.pid}, socket folder {sockets})")
        while not stop["asked"] and server.poll() is None:
            try:
                fcntl.flock(clients, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break  # no client holds it: nobody needs the server any more
            except BlockingIOError:
                time.sleep(POLL)
        if server.poll() is not None:
            note(log, f"server exited by itself (code {server.returncode})")
        return 0
    except Exception as exc:  # the client reads server.log; the message names the cause
        note(log, f"error: {exc}")
        return 1
    finally:
        if server is not None:
            stop_server(server, log)
        if sockets is not None:
            shutil.rmtree(sockets, ignore_errors=True)
        files.info.unlink(missing_ok=True)
        fcntl.flock(supervisor, fcntl.LOCK_UN)
        supervisor.close()
        clients.close()
        log.close()


def note(log, message: str) -> None:
    log.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} supervisor {os.getpid()}: {message}\n")
    log.flush()


def init_data(place: Layout, passfile: Path, log) -> None:
    """initdb (a new password, scram-sha-256) beside the data directory, then rename it into place (a killed
    initdb leaves no half cluster); a data directory that lets anyone in without the password is made afresh."""
    pgdata = place.pgdata
    if (pgdata / "PG_VERSION").is_file():
        if protected(pgdata, passfile):
            return
        note(log, "making the data directory afresh: it lets connections in without a password, or lost it")
    passfile.unlink(missing_ok=True)  # from here until the rename, no password names a cluster
    for stale in pgdata.parent.glob(f".{pgdata.name}-*"):
        shutil.rmtree(stale, ignore_errors=True)
    staging = pgdata.parent / f".{pgdata.name}-{os.getpid()}"
    staging.mkdir(mode=0o700)
    uid, gid = owner_ids()
    if uid is not None:
        os.chown(staging, uid, gid)
    password = new_password()
    with initdb_pwfile(pgdata.parent, password, uid, gid) as pwfile:
        args = [str(place.programs / "initdb"), "-D", str(staging), "-U", SUPERUSER, f"--auth={METHOD}"]
        args += [f"--pwfile={pwfile}", "--encoding=UTF8", "--locale=C", "--no-instructions"]
        done = subprocess.run(args, stdout=log, stderr=log, **run_as(), check=False)
    if done.returncode != 0:
        raise RuntimeError(f"initdb failed with exit code {done.returncode}")
    shutil.rmtree(pgdata, ignore_errors=True)
    os.rename(staging, pgdata)
    keep_for_clients(passfile, password)


def clear_stale_pid(pgdata: Path, log) -> None:
    """Stop a server left running on ``pgdata`` (its supervisor is gone), and drop a stale postmaster.pid."""
    pid_file = pgdata / "postmaster.pid"
    try:
        pid = int(pid_file.read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return
    if runs_postgres_on(pid, pgdata):
        note(log, f"stopping a server left running on this data directory (pid {pid})")
        os.kill(pid, signal.SIGINT)
        deadline = time.monotonic() + STOP_TIMEOUT
        while runs_postgres_on(pid, pgdata) and time.monotonic() < deadline:
            time.sleep(POLL)
        if runs_postgres_on(pid, pgdata):
            os.kill(pid, signal.SIGKILL)
    if pid_file.exists():
        note(log, "removing a stale postmaster.pid")
        pid_file.unlink(missing_ok=True)


def runs_postgres_on(pid: int, pgdata: Path) -> bool:
    """Whether process ``pid`` is a postgres server on ``pgdata`` (not a process that reused the pid)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return bool(argv) and argv[0].endswith(b"postgres") and str(pgdata).encode() in argv


def _die_with_parent() -> None:
    """In the server's process before exec: a fast shutdown (SIGINT) when the supervisor dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGINT)
    if os.getppid() == 1:  # the supervisor died before prctl took effect
        os._exit(1)


def start_server(place: Layout, sockets: Path, log) -> subprocess.Popen:
    settings = {
        "listen_addresses": "",  # Unix socket only: nothing listens on the network
        "unix_socket_directories": str(sockets),
        "max_connections": "40",
        "shared_buffers": "64MB",
        "maintenance_work_mem": "256MB",  # HNSW builds stay in memory
        "max_parallel_maintenance_workers": "0",
        "max_parallel_workers_per_gather": "0",
        "fsync": "on",
    }
    args = [str(place.programs / "postgres"), "-D", str(place.pgdata)]
    for key, value in settings.items():
        args += ["-c", f"{key}={value}"]
    preexec = _die_with_parent if sys.platform.startswith("linux") else None
    return subprocess.Popen(args, stdout=log, stderr=log, stdin=subprocess.DEVNULL, preexec_fn=preexec, **run_as())


def wait_ready(server: subprocess.Popen, sockets: Path, passfile: Path) -> None:
    """Until the server accepts connections (then the database exists), or a RuntimeError."""
    import psycopg

    deadline = time.monotonic() + READY_TIMEOUT
    login = {"host": str(sockets), "user": SUPERUSER, "password": client_password(passfile), "dbname": "postgres"}
    while True:
        if server.poll() is not None:
            raise RuntimeError(f"postgres exited with code {server.returncode} while starting")
        try:
            with psycopg.connect(autocommit=True, connect_timeout=5, **login) as conn:
                exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone()
                if exists is None:
                    conn.execute(f'CREATE DATABASE "{DATABASE}"')
                return
        except psycopg.OperationalError as exc:
            if "password authentication failed" in str(exc):  # e.g. a password file edited by hand
                raise RuntimeError(f"the server refused the password in {passfile}; delete it to start afresh") from exc
            if time.monotonic() > deadline:
                raise RuntimeError(f"postgres did not accept connections within {READY_TIMEOUT:.0f} s") from None
            time.sleep(POLL)


def stop_server(server: subprocess.Popen, log) -> None:
    """Fast shutdown (SIGINT), then immediate (SIGQUIT), then SIGKILL, each after a wait."""
    for signum in (signal.SIGINT, signal.SIGQUIT, signal.SIGKILL):
        if server.poll() is not None:
            break
        server.send_signal(signum)
        try:
            server.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            continue
    note(log, f"server stopped (exit code {server.returncode})")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
