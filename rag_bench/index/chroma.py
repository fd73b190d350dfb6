"""Chroma as the dense index (``retrieval.index=chroma``): its embedded HNSW, persisted under the cache.

One persistent Chroma folder per (vectors, documents' metadata, build settings) under
``<cache>/chroma/``, written with a ``complete.json`` marker after the last batch is added, so an
interrupted build is found incomplete and rebuilt; builds hold a file lock, so concurrent runs
build once. ``ef_search`` is a search setting (``collection.modify``), so an ef_search sweep
builds once. Space ``ip``: Chroma's distance is 1 - inner product, the score 1 - distance.
Filters become Chroma ``where`` clauses (``chroma_where``); every call is logged (``chroma.log``).
Numbers are stored and compared as floats: Chroma keeps integers and floats apart and compares an
integer field with a float operand wrongly (``{"n": {"$gte": 2.5}}`` matched ``n = 2``). A float holds
every integer up to 2^53 exactly, and no more (2^53 + 1 would equal 2^53), so a field holding a larger
integer, like one Chroma cannot store (a nested value, a key that is empty or starts with ``#`` or ``$``),
is left out of the stored metadata, and a filter on it, or with such an integer, stops with one line.
Telemetry is off: nothing leaves the machine.
"""

from __future__ import annotations

import fcntl
import json
import time
import warnings
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from rag_bench.core.cache import atomic_write, digest
from rag_bench.core.errors import ConfigError
from rag_bench.core.filters import Combine, Filter, Node
from rag_bench.index.base import IndexConfig, IndexContext, IndexReport

COLLECTION = "rag-bench"
EXACT_INTEGERS = 2**53  # a float64 holds every integer of at most this magnitude, and no larger one exactly
RESERVED_KEY = "chroma:document"
_CLIENTS: dict[Path, object] = {}
_LOADED_EF: dict[Path, int] = {}  # the ef_search each folder's index was loaded at in this process


@dataclass
class ChromaConfig(IndexConfig):
    """``retrieval.index=chroma``: Chroma's own defaults (max_neighbors 16, ef_construction 100, ef_search 100)."""

    name: str = "chroma"
    m: int = 16  # Chroma's hnsw max_neighbors
    ef_construction: int = 100
    ef_search: int = 100

    approximate: ClassVar[bool] = True
    search_keys: ClassVar[tuple[str, ...]] = ("ef_search",)

    def __post_init__(self) -> None:
        for key in ("m", "ef_construction", "ef_search"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10_000:
                raise ConfigError(f"retrieval.index.{key} ({value!r}) must be an integer from 1 to 10000")


def _chromadb():
    try:
        import chromadb
    except ImportError:
        raise ConfigError(
            "retrieval.index=chroma needs chromadb, which is not installed; "
            "install it with: pip install 'rag-bench[db]'"
        ) from None
    return chromadb


def build(cfg: ChromaConfig, vectors: np.ndarray, context: IndexContext) -> ChromaIndex:
    return ChromaIndex(cfg, np.ascontiguousarray(vectors, dtype=np.float32), context)


class ChromaIndex:
    """A persistent Chroma collection of the chunk vectors, searched one query per call."""

    def __init__(self, cfg: ChromaConfig, vectors: np.ndarray, context: IndexContext) -> None:
        self.cfg = cfg
        self.n_chunks, self.dim = vectors.shape
        key = digest("chroma", context.vectors_key, context.metadata_key, vectors.shape, cfg.build_settings())
        self.folder = context.cache.root / "chroma" / key[:32]
        self.log: list[str] = [f"# chromadb {_chromadb().__version__}, folder {self.folder}"]
        table = context.metadata
        raw = [table.distinct[c] for c in table.codes] if table is not None else [{}] * self.n_chunks
        self.metadata, self.unfilterable = chroma_metadata(raw)
        self.list_fields = {k for m in self.metadata if m for k, v in m.items() if isinstance(v, list)}
        self.folder.parent.mkdir(parents=True, exist_ok=True)
        with (self.folder.parent / f"{self.folder.name}.lock").open("a") as lock, _quiet():
            fcntl.flock(lock, fcntl.LOCK_EX)
            self.built, self.build_seconds = self._ensure(vectors)
            self.collection = self._open()
        self.disk_bytes = sum(p.stat().st_size for p in self.folder.rglob("*") if p.is_file())

    def _open(self):
        """The collection, searched at this index's ef_search.

        Chroma reads ef_search when it loads a collection's HNSW index into the process, and a later
        ``collection.modify`` does not reach an index already loaded: the process would silently go on
        searching at the old setting. So a folder loaded at another ef_search is reloaded (Chroma's
        shared systems dropped and the client opened again) before it is searched.
        """
        ef = self.cfg.ef_search
        if _LOADED_EF.get(self.folder, ef) != ef:
            from chromadb.api.client import SharedSystemClient

            SharedSystemClient.clear_system_cache()
            _CLIENTS.clear()
            _LOADED_EF.clear()
            self.log.append("# reopened the client: this process had loaded the index at another ef_search")
        collection = _client(self.folder).get_collection(COLLECTION)
        collection.modify(configuration={"hnsw": {"ef_search": ef}})
        self.log.append(f"collection.modify(configuration={{'hnsw': {{'ef_search': {ef}}}}})")
        _LOADED_EF[self.folder] = ef
        return collection

    @property
    def nbytes(self) -> int:
        return self.disk_bytes

    def _ensure(self, vectors: np.ndarray) -> tuple[bool, float]:
        """Build the collection unless a complete one exists: (built now, build seconds)."""
        marker = self.folder / "complete.json"
        if marker.is_file():
            self.log.append(f"# reused the collection an earlier run built ({self.n_chunks} vectors)")
            return False, float(json.loads(marker.read_text(encoding="utf-8"))["build_seconds"])
        start = time.perf_counter()
        client = _client(self.folder)
        if COLLECTION in [c.name for c in client.list_collections()]:  # an interrupted build
            client.delete_collection(COLLECTION)
            self.log.append(f"client.delete_collection({COLLECTION!r})  # left incomplete by an interrupted build")
        hnsw = {"space": "ip", "max_neighbors": self.cfg.m, "ef_construction": self.cfg.ef_construction}
        hnsw["ef_search"] = self.cfg.ef_search
        collection = client.create_collection(COLLECTION, configuration={"hnsw": hnsw}, embedding_function=None)
        self.log.append(f"client.create_collection({COLLECTION!r}, configuration={{'hnsw': {hnsw}}})")
        batch = client.get_max_batch_size()
        for first in range(0, self.n_chunks, batch):
            rows = range(first, min(first + batch, self.n_chunks))
            metadata = [self.metadata[i] for i in rows]
            collection.add(ids=[str(i) for i in rows], embeddings=vectors[first : rows.stop], metadatas=metadata)
            self.log.append(f"collection.add(ids=[{first}..{rows.stop - 1}], embeddings=<{len(rows)} x {self.dim}>)")
        seconds = time.perf_counter() - start
        atomic_write(marker, lambda handle: handle.write(json.dumps({"build_seconds": seconds}).encode()))
        return True, seconds

    def search(
        self, queries: np.ndarray, depth: int, filters: Sequence[Filter | None] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(n_queries, min(depth, n_chunks)) chunk indices and inner products, best first, ties by index."""
        queries = np.ascontiguousarray(queries, dtype=np.float32)  # (n_queries, dim)
        filters = list(filters) if filters is not None else [None] * len(queries)
        if _LOADED_EF.get(self.folder) != self.cfg.ef_search:  # another index of this folder searched since
            self.collection = self._open()
        width = min(depth, self.n_chunks)
        indices = np.full((len(queries), width), -1, np.int64)
        scores = np.full((len(queries), width), -np.inf)
        wheres = {flt.source: self._where(flt) for flt in filters if flt is not None}  # refused before any query
        for q, (vector, flt) in enumerate(zip(queries, filters, strict=True)):
            where = None if flt is None else wheres[flt.source]
            with _quiet():
                found = self.collection.query(
                    query_embeddings=vector[None, :], n_results=width, where=where, include=["distances"]
                )
            self.log.append(f"collection.query(query_embeddings=<1 x {self.dim}>, n_results={width}, where={where})")
            rows = sorted(
                ((1.0 - d, int(i)) for i, d in zip(found["ids"][0], found["distances"][0], strict=True)),
                key=lambda r: (-r[0], r[1]),
            )
            indices[q, : len(rows)] = [i for _, i in rows]
            scores[q, : len(rows)] = [s for s, _ in rows]
        return indices, scores

    def _where(self, flt: Filter) -> dict:
        blocked = sorted(flt.fields & self.unfilterable.keys())
        if blocked:
            raise ConfigError(
                f"retrieval.index=chroma cannot filter on metadata field {blocked[0]!r} (filter {flt.source}): "
                f"{self.unfilterable[blocked[0]]}; use another index (exact, hnsw, pgvector) or fix the metadata"
            )
        inexact = [v for v in _operands(flt.node) if _beyond_floats(v)]
        if inexact:
            raise ConfigError(
                f"retrieval.index=chroma cannot filter exactly with {flt.source}: {inexact[0]} is an integer beyond "
                f"2^53, which Chroma compares as a float ({inexact[0]} would equal {int(float(inexact[0]))}); use "
                "another index (exact, hnsw, pgvector), or store and compare the value as a string"
            )
        return chroma_where(flt.node, self.list_fields)

    def report(self) -> IndexReport:
        details = {"folder": str(self.folder), "chromadb": _chromadb().__version__}
        return IndexReport(self.build_seconds, self.built, self.disk_bytes, "chroma.log", tuple(self.log), details)


@contextmanager
def _quiet():
    """Chroma warns that a collection without an embedding function is a legacy configuration; vectors come from us."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="legacy embedding function config", category=DeprecationWarning)
        yield


def _client(folder: Path):
    if folder not in _CLIENTS:
        chromadb = _chromadb()
        settings = chromadb.Settings(anonymized_telemetry=False, allow_reset=False)
        _CLIENTS[folder] = chromadb.PersistentClient(path=str(folder), settings=settings)
    return _CLIENTS[folder]


def chroma_metadata(raw: Sequence[Mapping[str, object]]) -> tuple[list[dict | None], dict[str, str]]:
    """Chunk metadata Chroma can store exactly, and the fields it cannot, each with the reason (the first found)."""
    out, unfilterable = [], {}
    for meta in raw:
        kept = {}
        for key, value in meta.items():
            problem = _unstorable(key, value)
            if problem is None:
                kept[key] = [_float(v) for v in value] if isinstance(value, list | tuple) else _float(value)
            else:
                unfilterable.setdefault(key, problem)
        out.append(kept or None)
    return out, unfilterable


def _unstorable(key: str, value: object) -> str | None:
    """Why Chroma cannot store ``key: value`` so that it compares exactly, or None when it can."""
    if not key or key.startswith(("#", "$")) or key == RESERVED_KEY:
        return f"Chroma refuses the key {key!r} (empty, starting with # or $, or {RESERVED_KEY!r})"
    elements = value if isinstance(value, list | tuple) else [value]
    if not all(isinstance(v, str | bool | int | float) for v in elements) or not elements:
        return f"it holds {value!r}; Chroma stores only strings, numbers, booleans and non-empty lists of one of them"
    if len({_kind(v) for v in elements}) > 1:
        return f"it holds {value!r}; Chroma stores only lists of one type"
    big = next((v for v in elements if _beyond_floats(v)), None)
    if big is not None:
        return f"it holds {big}, an integer beyond 2^53, which Chroma compares as a float (as {int(float(big))})"
    return None


def _beyond_floats(value: object) -> bool:
    """An integer a float64 cannot hold exactly (magnitude above 2^53)."""
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) > EXACT_INTEGERS


def _operands(node: Node) -> list[object]:
    """Every value ``node`` compares with."""
    if isinstance(node, Combine):
        return [v for part in node.parts for v in _operands(part)]
    return list(node.value) if isinstance(node.value, tuple) else [node.value]


def _float(value: object) -> object:
    """Numbers as floats (booleans and strings as they are), so Chroma compares every number alike."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def _kind(value: object) -> str:
    return "bool" if isinstance(value, bool) else "str" if isinstance(value, str) else "number"


def chroma_where(node: Node, list_fields: set[str]) -> dict:
    """A Chroma ``where`` with the semantics of ``rag_bench.core.filters`` (list fields match on any element)."""
    if isinstance(node, Combine):
        return _join("$and" if node.all_of else "$or", [chroma_where(p, list_fields) for p in node.parts])
    f = node.field
    values = tuple(_float(v) for v in (node.value if isinstance(node.value, tuple) else (node.value,)))
    if node.op in ("$eq", "$in"):
        return _join("$or", [*_typed(f, "$in", values), *({f: {"$contains": v}} for v in values)])
    if node.op == "$nin":
        return _join("$and", [*_typed(f, "$nin", values), *({f: {"$not_contains": v}} for v in values)])
    if f in list_fields:
        raise ConfigError(f"retrieval.index=chroma cannot compare list-valued field {f!r} with {node.op}")
    return {f: {node.op: _float(node.value)}}


def _typed(field: str, op: str, values: tuple) -> list[dict]:
    """One ``$in``/``$nin`` per value type (Chroma wants one type per list); numbers by int and float."""
    groups: dict[type, list] = {}
    for v in values:
        groups.setdefault(type(v), []).append(v)
    return [{field: {op: vs}} for vs in groups.values()]


def _join(op: str, parts: list[dict]) -> dict:
    return parts[0] if len(parts) == 1 else {op: parts}
