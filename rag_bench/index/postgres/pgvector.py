"""PostgreSQL + pgvector as the dense index (``retrieval.index=pgvector``): exact, HNSW or IVFFlat search in SQL.

Vectors go into a table ``(id int4, embedding vector(dim), metadata jsonb)`` by binary COPY; the
table is named by the vectors, the documents' metadata, the method and its build settings, and
holds that one index (so the planner can only use the index being measured); runs and sweep
points with the same vectors and build settings reuse them (an ef_search sweep builds once).
Each build is one transaction, recorded in ``rag_bench_builds`` before it commits: an interrupted
build leaves nothing half made.
Search is ``ORDER BY embedding <#> q LIMIT depth`` (negative inner product, unit vectors), a
filter becomes a WHERE on ``metadata`` (``sql.where``), and every statement is logged into
the run folder (``pgvector.sql``) with the plan of the first query. For ``hnsw``/``ivfflat``
sequential scans are turned off, so the planner cannot answer a small table exactly instead of
through the index being measured. Rows come back ordered by (score, id), ties broken by id.

The server is rag-bench's embedded PostgreSQL (``server.py``) unless ``dsn`` names one. jsonb
holds no NUL character (``\\u0000``): a metadata field with one (in its key or a document's value) is
left out of the table, and a filter on it, or with one, stops with one line before any query.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from rag_bench.core.cache import digest
from rag_bench.core.errors import ConfigError
from rag_bench.core.filters import Filter, MetadataTable
from rag_bench.core.options import one_of
from rag_bench.index.base import IndexConfig, IndexContext, IndexReport
from rag_bench.index.postgres.connect import Session, session
from rag_bench.index.postgres.sql import copy_rows, holds_nul, where

METHODS = ("exact", "hnsw", "ivfflat")
ITERATIVE = ("off", "strict_order", "relaxed_order")
MAX_INDEXED_DIM = 2000  # pgvector indexes vector columns up to 2,000 dimensions
NUL = "which PostgreSQL's jsonb cannot hold; remove it from {}, or use another index (exact, hnsw, chroma)"
TABLE_LAYOUT = 1  # part of table names: a change to what a table holds gets new tables


@dataclass
class PgvectorConfig(IndexConfig):
    """``retrieval.index=pgvector`` with pgvector's own defaults (m, ef_construction, ef_search, lists, probes)."""

    name: str = "pgvector"
    method: str = "hnsw"  # exact (no index: a sequential scan), hnsw, ivfflat
    m: int = 16  # hnsw: neighbours per node
    ef_construction: int = 64  # hnsw: build beam, at least 2 * m
    ef_search: int = 40  # hnsw: search beam; a query returns at most ef_search rows unless iterative_scan is on
    lists: int = 100  # ivfflat: clusters
    probes: int = 1  # ivfflat: clusters searched per query
    iterative_scan: str = "off"  # off, strict_order (hnsw), relaxed_order: scan on until LIMIT rows pass the filter
    max_scan_tuples: int = 20000  # hnsw iterative scans: tuples visited at most
    dsn: str | None = None  # your own server (postgresql://...); null = rag-bench's embedded server

    approximate: ClassVar[bool] = True
    search_keys: ClassVar[tuple[str, ...]] = ("ef_search", "probes", "iterative_scan", "max_scan_tuples", "dsn")

    def __post_init__(self) -> None:
        one_of("retrieval.index.method", self.method, METHODS)
        one_of("retrieval.index.iterative_scan", self.iterative_scan, ITERATIVE)
        for key, low, high in (("m", 2, 100), ("ef_search", 1, 1000), ("lists", 1, 32768), ("probes", 1, 32768)):
            _check_int(key, getattr(self, key), low, high)
        _check_int("ef_construction", self.ef_construction, 4, 1000)
        _check_int("max_scan_tuples", self.max_scan_tuples, 1, 2**31 - 1)
        if self.ef_construction < 2 * self.m:
            raise ConfigError(
                f"retrieval.index.ef_construction ({self.ef_construction}) must be at least 2 * retrieval.index.m "
                f"({2 * self.m}), as pgvector requires"
            )
        if self.method == "ivfflat" and self.iterative_scan == "strict_order":
            raise ConfigError(
                "retrieval.index.iterative_scan=strict_order is hnsw's; ivfflat allows off or relaxed_order"
            )

    def build_settings(self) -> dict:
        own = {"exact": (), "hnsw": ("m", "ef_construction"), "ivfflat": ("lists",)}[self.method]
        return {"method": self.method, **{key: getattr(self, key) for key in own}}


def _check_int(key: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"retrieval.index.{key} ({value!r}) must be an integer from {low} to {high}")


def nul_fields(metadata: MetadataTable | None) -> set[str]:
    """The metadata fields some document's key or value holds a NUL character in (left out of the table)."""
    rows = metadata.distinct if metadata is not None else ()
    return {key for meta in rows for key, value in meta.items() if holds_nul(key) or holds_nul(value)}


def check_filter(flt: Filter, left_out: set[str]) -> None:
    """A ConfigError when ``flt`` names a field left out of the table, or holds a NUL character itself."""
    blocked = sorted(flt.fields & left_out)
    if blocked:
        raise ConfigError(
            f"retrieval.index=pgvector cannot filter on metadata field {blocked[0]!r} (filter {flt.source}): a "
            f"document's metadata holds a NUL character (\\u0000) there, {NUL.format('the metadata')}"
        )
    if holds_nul(json.loads(flt.source)):
        raise ConfigError(
            f"retrieval.index=pgvector cannot filter with {flt.source}: it holds a NUL character (\\u0000), "
            + NUL.format("the filter")
        )


def build(cfg: PgvectorConfig, vectors: np.ndarray, context: IndexContext) -> PgvectorIndex:
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)  # (n_chunks, dim)
    if cfg.method != "exact" and vectors.shape[1] > MAX_INDEXED_DIM:
        raise ConfigError(
            f"retrieval.index.method={cfg.method} indexes at most {MAX_INDEXED_DIM} dimensions and the vectors have "
            f"{vectors.shape[1]}; lower embedder.dimension or use method=exact"
        )
    db = session(cfg.dsn, context.cache.root)
    return PgvectorIndex(cfg, vectors, context, db)


class PgvectorIndex:
    """One table (and index) in PostgreSQL, searched one SQL query per question."""

    def __init__(self, cfg: PgvectorConfig, vectors: np.ndarray, context: IndexContext, db: Session) -> None:
        self.cfg, self.db = cfg, db
        self.n_chunks, self.dim = vectors.shape
        # one table per index (and build settings): a planner given two ANN indexes, or an exact query on a table
        # with one, may pick another index than the one measured (an index scan plus an incremental sort by id)
        key = digest("pgvector", TABLE_LAYOUT, context.vectors_key, context.metadata_key, vectors.shape)
        self.table = "rb_" + digest(key, cfg.build_settings())[:24]
        self.index = f"{self.table}_{cfg.method}_{digest(cfg.build_settings())[:10]}"
        self.log: list[str] = [f"-- {db.version}, pgvector {db.extension}; server: {db.where}"]
        self.details: dict[str, object] = {"server": db.where, "pgvector": db.extension, "method": cfg.method}
        self._explained = False
        self.left_out = nul_fields(context.metadata)
        start = time.perf_counter()
        built_table = self._ensure_table(vectors, context)
        built_index = self._ensure_index() if cfg.method != "exact" else False
        self.built = built_table or built_index
        recorded = db.scalar(
            "SELECT sum(build_seconds) FROM rag_bench_builds WHERE table_name = %s AND name IN (%s, %s)",
            (self.table, self.table, self.index),
        )
        self.build_seconds = time.perf_counter() - start if self.built else float(recorded or 0.0)
        sizes = [self.table] + ([self.index] if cfg.method != "exact" else [])
        self.disk_bytes = int(db.scalar("SELECT pg_table_size(%s::regclass)", (self.table,)))
        if cfg.method != "exact":
            self.disk_bytes += int(db.scalar("SELECT pg_relation_size(%s::regclass)", (self.index,)))
        self.details["relations"] = sizes

    @property
    def nbytes(self) -> int:
        return self.disk_bytes

    def _ensure_table(self, vectors: np.ndarray, context: IndexContext) -> bool:
        """Create and load the table unless an earlier build did; True when built now."""
        metadata = context.metadata
        kept = (
            [{k: v for k, v in m.items() if k not in self.left_out} for m in metadata.distinct]
            if metadata is not None
            else []
        )
        rows = [kept[c] for c in metadata.codes] if metadata is not None else [{}] * self.n_chunks
        with self.db.transaction(f"table {self.table}") as tx:
            if tx.recorded(self.table):
                self.log.append(f"-- reused table {self.table} ({self.n_chunks} rows), built by an earlier run")
                return False
            start = time.perf_counter()
            tx.run(f"DROP TABLE IF EXISTS {self.table} CASCADE")
            tx.run(
                f"CREATE TABLE {self.table} (id int4 PRIMARY KEY, embedding vector({self.dim}) NOT NULL, "
                "metadata jsonb NOT NULL)"
            )
            tx.copy(f"COPY {self.table} (id, embedding, metadata) FROM STDIN (FORMAT BINARY)", copy_rows(vectors, rows))
            tx.run(f"ANALYZE {self.table}")
            tx.record(self.table, self.table, {"rows": self.n_chunks, "dim": self.dim}, time.perf_counter() - start)
        self.log.extend(["BEGIN;", *tx.log, "COMMIT;"])
        return True

    def _ensure_index(self) -> bool:
        cfg = self.cfg
        with self.db.transaction(f"index {self.index}") as tx:
            if tx.recorded(self.index):
                self.log.append(f"-- reused index {self.index} ({cfg.method}), built by an earlier run")
                return False
            start = time.perf_counter()
            options = f"m = {cfg.m}, ef_construction = {cfg.ef_construction}" if cfg.method == "hnsw" else ""
            options = options or f"lists = {cfg.lists}"
            tx.run(f"DROP INDEX IF EXISTS {self.index}")
            using = f"USING {cfg.method} (embedding vector_ip_ops) WITH ({options})"
            tx.run(f"CREATE INDEX {self.index} ON {self.table} {using}")
            tx.record(self.index, self.table, cfg.build_settings(), time.perf_counter() - start)
        self.log.extend(["BEGIN;", *tx.log, "COMMIT;"])
        return True

    def _configure(self) -> None:
        """The session settings of this index's searches (set again whenever another index used the session)."""
        cfg = self.cfg
        exact = cfg.method == "exact"
        settings = {"enable_seqscan": "on" if exact else "off", "enable_indexscan": "off" if exact else "on"}
        if cfg.method == "hnsw":
            settings.update({"hnsw.ef_search": cfg.ef_search, "hnsw.iterative_scan": cfg.iterative_scan})
            settings["hnsw.max_scan_tuples"] = cfg.max_scan_tuples
        elif cfg.method == "ivfflat":
            settings.update({"ivfflat.probes": cfg.probes, "ivfflat.iterative_scan": cfg.iterative_scan})
        self.log.extend(self.db.configure(settings))

    def search(
        self, queries: np.ndarray, depth: int, filters: Sequence[Filter | None] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(n_queries, min(depth, n_chunks)) chunk ids and inner products, best first, one SQL query each."""
        queries = np.ascontiguousarray(queries, dtype=np.float32)  # (n_queries, dim)
        filters = list(filters) if filters is not None else [None] * len(queries)
        for flt in {f.source: f for f in filters if f is not None}.values():
            check_filter(flt, self.left_out)
        self._configure()
        width = min(depth, self.n_chunks)
        indices = np.full((len(queries), width), -1, np.int64)
        scores = np.full((len(queries), width), -np.inf)
        for q, (vector, flt) in enumerate(zip(queries, filters, strict=True)):
            sql, params = self._query(vector, flt, width)
            if not self._explained:
                self._explained = True
                plan = self.db.explain(sql, params)
                self.log.extend(f"-- plan: {line}" for line in plan)
                self.details["plan_uses_index"] = any(self.index in line for line in plan)
            rows = self.db.fetch(sql, params)
            rows.sort(key=lambda r: (-r[1], r[0]))  # ties by id: the corpus order every index uses
            indices[q, : len(rows)] = [r[0] for r in rows]
            scores[q, : len(rows)] = [r[1] for r in rows]
        return indices, scores

    def _query(self, vector: np.ndarray, flt: Filter | None, depth: int) -> tuple[str, list]:
        clause, params = where(flt.node) if flt is not None else ("", [])
        order = "embedding <#> %s" + (", id" if self.cfg.method == "exact" else "")
        sql = f"SELECT id, -(embedding <#> %s) AS score FROM {self.table}"
        sql += f" WHERE {clause}" if clause else ""
        return f"{sql} ORDER BY {order} LIMIT %s", [vector, *params, vector, depth]

    def report(self) -> IndexReport:
        self.log.extend(self.db.take_log())
        details = {**self.details, "table": self.table, "index": self.index if self.cfg.method != "exact" else None}
        return IndexReport(self.build_seconds, self.built, self.disk_bytes, "pgvector.sql", tuple(self.log), details)
