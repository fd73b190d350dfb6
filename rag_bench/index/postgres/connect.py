"""A logged PostgreSQL session for pgvector indexes: one connection per server per process, every statement kept.

numpy vectors are sent as pgvector's binary ``vector`` (a registered dumper). Builds run in a
transaction that first takes an advisory lock on what it builds, so concurrent runs on one
server build each table once and the others reuse it.
"""

from __future__ import annotations

import atexit
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.index.postgres.auth import client_password
from rag_bench.index.postgres.files import server_files
from rag_bench.index.postgres.server import embedded_dsn
from rag_bench.index.postgres.sql import inline, vector_binary

CATALOG = """CREATE TABLE IF NOT EXISTS rag_bench_builds (
    name text PRIMARY KEY, table_name text NOT NULL, settings jsonb NOT NULL,
    build_seconds float8 NOT NULL, built_at timestamptz NOT NULL DEFAULT now())"""  # every committed build
_SESSIONS: dict[tuple[str, str], Session] = {}
_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@|(password=)\S+")


def session(dsn: str | None, cache_root: Path) -> Session:
    """The process's session with ``dsn`` (None: the embedded server under ``cache_root/pgvector``)."""
    target = dsn or embedded_dsn(cache_root / "pgvector")
    where = "embedded PostgreSQL" if dsn is None else _PASSWORD.sub(r"\1\2***@", dsn)
    live = _SESSIONS.get((target, where))
    if live is not None and live.alive():
        return live
    password = client_password(server_files(cache_root / "pgvector").passfile) if dsn is None else None
    _SESSIONS[target, where] = Session(target, where, password)
    return _SESSIONS[target, where]


@atexit.register
def _close_all() -> None:
    """Close every session's connection when the process ends (before the server it talks to stops)."""
    for live in _SESSIONS.values():
        live.conn.close()
    _SESSIONS.clear()


class Session:
    """A connection (autocommit) with pgvector ready, and the log of what it ran."""

    def __init__(self, dsn: str, where: str, password: str | None = None) -> None:
        import psycopg
        from psycopg.adapt import Dumper
        from psycopg.pq import Format
        from psycopg.types import TypeInfo

        try:
            login = {} if password is None else {"password": password}  # the embedded server's, over PGPASSWORD
            self.conn = psycopg.connect(dsn, autocommit=True, connect_timeout=10, **login)
        except psycopg.OperationalError as exc:
            message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ConfigError(f"retrieval.index.dsn: cannot connect to {where} ({message})") from None
        self.where = where
        self._log: list[str] = []
        self._applied: dict[str, object] = {}
        with self.transaction("rag-bench catalog") as tx:
            tx.run("CREATE EXTENSION IF NOT EXISTS vector")
            tx.run(CATALOG)
        self.version = self.scalar("SELECT version()").split(" on ")[0]
        self.extension = self.scalar("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        info = TypeInfo.fetch(self.conn, "vector")

        class VectorDumper(Dumper):
            format = Format.BINARY
            oid = info.oid

            def dump(self, obj: np.ndarray) -> bytes:
                return vector_binary(obj)

        self.conn.adapters.register_dumper(np.ndarray, VectorDumper)
        self._log.clear()

    def alive(self) -> bool:
        try:
            self.conn.execute("SELECT 1")
            return True
        except Exception:
            return False

    def scalar(self, sql: str, params: tuple = ()) -> object:
        row = self.conn.execute(sql, params).fetchone()
        return None if row is None else row[0]

    @contextmanager
    def transaction(self, what: str) -> Iterator[Build]:
        """A transaction holding an advisory lock on ``what`` (committed when the block ends)."""
        with self.conn.transaction():
            self.conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (what,))
            yield Build(self.conn)

    def configure(self, settings: dict[str, object]) -> list[str]:
        """SET what differs from the session's current settings; the statements run."""
        run = []
        for key, value in settings.items():
            if self._applied.get(key) != value:
                self.conn.execute(f"SET {key} = {value}")
                self._applied[key] = value
                run.append(f"SET {key} = {value};")
        return run

    def explain(self, sql: str, params: list) -> list[str]:
        rows = self.conn.execute(f"EXPLAIN (COSTS OFF) {sql}", params).fetchall()
        return [r[0] for r in rows]

    def fetch(self, sql: str, params: list) -> list[tuple[int, float]]:
        self._log.append(inline(sql, params) + ";")
        return [(int(i), float(s)) for i, s in self.conn.execute(sql, params).fetchall()]

    def take_log(self) -> list[str]:
        taken, self._log = self._log, []
        return taken


class Build:
    """The statements of one build transaction."""

    def __init__(self, conn) -> None:
        self.conn = conn
        self.log: list[str] = []

    def recorded(self, name: str) -> bool:
        return self.conn.execute("SELECT 1 FROM rag_bench_builds WHERE name = %s", (name,)).fetchone() is not None

    def run(self, sql: str) -> None:
        self.conn.execute(sql)
        self.log.append(sql + ";")

    def copy(self, sql: str, pieces: Iterable[bytes]) -> None:
        with self.conn.cursor() as cur, cur.copy(sql) as copy:
            for piece in pieces:
                copy.write(piece)
        self.log.append(f"{sql};  -- binary COPY stream")

    def record(self, name: str, table: str, settings: dict, seconds: float) -> None:
        import json

        sql = (
            "INSERT INTO rag_bench_builds (name, table_name, settings, build_seconds) VALUES (%s, %s, %s::jsonb, %s) "
            "ON CONFLICT (name) DO UPDATE SET settings = EXCLUDED.settings, build_seconds = EXCLUDED.build_seconds"
        )
        params = (name, table, json.dumps(settings, sort_keys=True), seconds)
        self.conn.execute(sql, params)
        self.log.append(inline(sql, params) + ";")
