"""One filter, three evaluators: rag-bench's own, PostgreSQL (jsonb WHERE) and Chroma (where), on random metadata."""

from __future__ import annotations

import json
import random
import warnings

import numpy as np
import pytest

from rag_bench.core.filters import parse_filter
from rag_bench.index.chroma import chroma_metadata, chroma_where
from rag_bench.index.postgres.sql import where

from .conftest import needs_chroma, needs_pg

pytestmark = pytest.mark.db

GROUPS = ["all", "eng", "hr", "legal"]


def _metadata(rng: random.Random, n: int) -> list[dict]:
    rows = []
    for _ in range(n):
        row = {}
        if rng.random() < 0.85:
            row["acl"] = rng.sample(GROUPS, rng.randint(1, 3)) if rng.random() < 0.7 else rng.choice(GROUPS)
        if rng.random() < 0.8:
            row["n"] = rng.choice([rng.randint(0, 9), rng.randint(0, 9) + 0.5])
        if rng.random() < 0.6:
            row["b"] = rng.random() < 0.5
        if rng.random() < 0.7:
            row["s"] = rng.choice(["x", "y", "1"])
        rows.append(row)
    return rows


def _leaf(rng: random.Random) -> dict:
    field = rng.choice(["acl", "n", "b", "s", "missing"])
    values = {"acl": GROUPS, "n": [1, 2.5, 4, 7], "b": [True, False], "s": ["x", "y", "1"], "missing": ["z"]}[field]
    op = rng.choice(["eq", "$in", "$nin", "$gte", "$lt", "$gt", "$lte"] if field == "n" else ["eq", "$in", "$nin"])
    if op == "eq":
        return {field: rng.choice(values)}
    if op in ("$in", "$nin"):
        return {field: {op: rng.sample(values, rng.randint(1, len(values)))}}
    return {field: {op: rng.choice(values)}}


def _filter(rng: random.Random, depth: int = 0) -> dict:
    if depth < 2 and rng.random() < 0.35:
        return {rng.choice(["$and", "$or"]): [_filter(rng, depth + 1) for _ in range(rng.randint(2, 3))]}
    return _leaf(rng)


@pytest.fixture(scope="module")
def cases():
    rng = random.Random(7)
    return _metadata(rng, 120), [parse_filter(_filter(rng)) for _ in range(150)]


def _expected(metadata, flt) -> set[int]:
    return {i for i, m in enumerate(metadata) if flt.matches(m)}


@needs_pg
def test_sql_where_equals_the_filter_language(db_cache, cases):
    from rag_bench.index.postgres.connect import session

    metadata, filters = cases
    db = session(None, db_cache)
    with db.conn.transaction():
        db.conn.execute("CREATE TEMP TABLE meta (id int4, metadata jsonb NOT NULL) ON COMMIT DROP")
        with db.conn.cursor() as cur, cur.copy("COPY meta (id, metadata) FROM STDIN") as copy:
            for i, m in enumerate(metadata):
                copy.write_row((i, json.dumps(m)))
        for flt in filters:
            sql, params = where(flt.node)
            got = {i for (i,) in db.conn.execute(f"SELECT id FROM meta WHERE {sql}", params).fetchall()}
            assert got == _expected(metadata, flt), flt.source


@needs_chroma
def test_chroma_where_equals_the_filter_language(tmp_path, cases):
    import chromadb

    metadata, filters = cases
    stored, unfilterable = chroma_metadata(metadata)
    assert not unfilterable
    client = chromadb.PersistentClient(path=str(tmp_path), settings=chromadb.Settings(anonymized_telemetry=False))
    with warnings.catch_warnings():  # Chroma calls a collection without an embedding function "legacy"
        warnings.filterwarnings("ignore", message="legacy embedding function config", category=DeprecationWarning)
        collection = client.create_collection("filters", embedding_function=None)
    collection.add(ids=[str(i) for i in range(len(metadata))], embeddings=np.eye(len(metadata), 4), metadatas=stored)
    list_fields = {k for m in stored if m for k, v in m.items() if isinstance(v, list)}
    checked = 0
    for flt in filters:
        try:
            clause = chroma_where(flt.node, list_fields)
        except Exception as exc:  # a range on the list-valued field: refused, never answered wrongly
            assert "cannot compare list-valued field" in str(exc)
            continue
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="legacy embedding function config", category=DeprecationWarning)
            got = {int(i) for i in collection.get(where=clause)["ids"]}
        assert got == _expected(metadata, flt), flt.source
        checked += 1
    assert checked >= 100
