"""How a client proves it may use the embedded server: a random superuser password, asked by scram-sha-256.

initdb gets a new random password (``secrets.token_urlsafe(32)``: 256 bits) and
``--auth=scram-sha-256``, so pg_hba.conf asks it of every connection, local (Unix socket) and host
alike: another local user who reaches the socket still cannot log in (and run programs through
``COPY ... TO PROGRAM``). Clients find it in ``<cache>/pgvector/password``, a libpq password file
(``*:*:*:postgres:<password>``, mode 0600, so only the cache's owner reads it) that the DSN names
(``passfile=``); rag-bench's own connections also pass it explicitly, so a ``PGPASSWORD`` in the
environment cannot override it. A data directory made by an older rag-bench (``trust``: every local
connection let in) or whose password file is gone is made afresh: it holds only tables rag-bench rebuilds.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from rag_bench.core.files import write_private
from rag_bench.index.postgres.files import DATABASE, SUPERUSER

METHOD = "scram-sha-256"


def new_password() -> str:
    return secrets.token_urlsafe(32)


@contextmanager
def initdb_pwfile(folder: Path, password: str, uid: int | None, gid: int | None) -> Iterator[Path]:
    """A file in ``folder`` holding ``password`` for initdb (which runs as the server's user); removed after."""
    path = folder / f".pwfile-{os.getpid()}"
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(password + "\n")
        if uid is not None:
            os.chown(path, uid, gid)
        yield path
    finally:
        path.unlink(missing_ok=True)


def keep_for_clients(passfile: Path, password: str) -> None:
    """Write ``password`` as a libpq password file readable by its owner only."""
    write_private(passfile, f"*:*:*:{SUPERUSER}:{password}\n".encode())


def client_password(passfile: Path) -> str | None:
    """The password ``passfile`` keeps, or None when there is none to read."""
    try:
        line = passfile.read_text(encoding="utf-8").splitlines()[0]
    except (OSError, IndexError):
        return None
    return line.split(":", 4)[4] if line.count(":") >= 4 else None


def protected(pgdata: Path, passfile: Path) -> bool:
    """Whether every rule of ``pgdata``'s pg_hba.conf asks for a password, and clients have it in ``passfile``."""
    if client_password(passfile) is None:
        return False
    try:
        lines = (pgdata / "pg_hba.conf").read_text(encoding="utf-8").splitlines()
    except OSError:
        return False
    rules = [line.split("#", 1)[0].split() for line in lines]
    rules = [rule for rule in rules if rule]
    return bool(rules) and all(_method(rule) == METHOD for rule in rules)


def _method(rule: list[str]) -> str:
    """A pg_hba.conf rule's method: ``local DATABASE USER METHOD``, ``host DATABASE USER ADDRESS METHOD``."""
    position = 3 if rule[0] == "local" else 4
    return rule[position] if len(rule) > position else ""


def client_dsn(sockets: Path, passfile: Path) -> str:
    """The server's DSN: its socket folder and the password file (never the password itself)."""
    return f"postgresql://{SUPERUSER}@/{DATABASE}?host={quote(str(sockets))}&passfile={quote(str(passfile))}"
