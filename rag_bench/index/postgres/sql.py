"""What rag-bench sends PostgreSQL: a filter as a parameterised WHERE over a jsonb column, rows as binary COPY.

A comparison becomes one SQL/JSON path test on ``metadata``, e.g. ``{"acl": {"$in": ["eng", "all"]}}``:

    jsonb_path_exists(metadata, %s::jsonpath, %s::jsonb)
    -- params: '$."acl" ? (@ == $v0 || @ == $v1)', '{"v0": "eng", "v1": "all"}'

Path filters in lax mode unwrap an array, so a list-valued field matches when any element does;
a comparison of different JSON types (a string with a number, a boolean with a number) is
unknown, so it matches nothing, as in ``rag_bench.core.filters``. ``$nin`` is ``NOT`` of the ``$in``
test (a document without the field passes). Field names are quoted as JSON strings and values
travel as parameters, never inside the SQL text. jsonb holds no NUL character (``\\u0000``) in a
key or string (``holds_nul`` finds one, so that it is refused before anything is sent).

Binary COPY (PostgreSQL's documented format): the header ``PGCOPY\\n\\377\\r\\n\\0``, flags and
extension length (int32 0, 0); per row an int16 field count and per field an int32 length and
its binary value (int4 big-endian; pgvector's ``vector``: int16 dim, int16 0, dim float4
big-endian; ``jsonb``: version byte 1, then the JSON text); int16 -1 ends the stream.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from rag_bench.core.filters import Combine, Node

_TESTS = {"$eq": "==", "$in": "==", "$nin": "==", "$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}
COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
COPY_TRAILER = struct.pack(">h", -1)


def where(node: Node) -> tuple[str, list[str]]:
    """``node`` as SQL over the jsonb column ``metadata``, with its parameters (in order)."""
    if isinstance(node, Combine):
        parts = [where(part) for part in node.parts]
        joiner = " AND " if node.all_of else " OR "
        return "(" + joiner.join(sql for sql, _ in parts) + ")", [p for _, params in parts for p in params]
    values = node.value if isinstance(node.value, tuple) else (node.value,)
    test = " || ".join(f"@ {_TESTS[node.op]} $v{i}" for i in range(len(values)))
    path = f"$.{json.dumps(node.field)} ? ({test})"
    variables = json.dumps({f"v{i}": v for i, v in enumerate(values)})
    sql = "jsonb_path_exists(metadata, %s::jsonpath, %s::jsonb)"
    return (f"NOT {sql}" if node.op == "$nin" else sql), [path, variables]


def holds_nul(value: object) -> bool:
    """Whether ``value`` (decoded JSON) has a NUL character in a string or key, which jsonb cannot hold."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, Mapping):
        return any(holds_nul(k) or holds_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(holds_nul(v) for v in value)
    return False


def inline(sql: str, params: Sequence[object]) -> str:
    """``sql`` with its parameters written in as SQL literals, for the run folder's log (never executed)."""
    pieces = sql.split("%s")
    if len(pieces) != len(params) + 1:
        raise ValueError(f"{len(params)} parameters for {len(pieces) - 1} placeholders")
    out = [pieces[0]]
    for param, piece in zip(params, pieces[1:], strict=True):
        out.append(_literal(param) + piece)
    return "".join(out)


def _literal(value: object) -> str:
    if isinstance(value, np.ndarray):
        return f"'[{len(value)} float4 values]'"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def vector_binary(row: np.ndarray) -> bytes:
    """pgvector's binary ``vector``: int16 dimension, int16 unused, float4 values, big-endian."""
    return struct.pack(">HH", row.shape[0], 0) + np.ascontiguousarray(row, dtype=">f4").tobytes()


def copy_rows(vectors: np.ndarray, metadata: Sequence[Mapping[str, object]], batch: int = 2048) -> Iterator[bytes]:
    """Binary COPY data for rows (id, embedding vector, metadata jsonb), ids 0..n-1, in pieces."""
    yield COPY_HEADER
    for start in range(0, len(vectors), batch):
        piece = bytearray()
        for i in range(start, min(start + batch, len(vectors))):
            vector = vector_binary(vectors[i])
            meta = b"\x01" + json.dumps(dict(metadata[i]), sort_keys=True).encode("utf-8")
            piece += struct.pack(">hii", 3, 4, i) + struct.pack(">i", len(vector)) + vector
            piece += struct.pack(">i", len(meta)) + meta
        yield bytes(piece)
    yield COPY_TRAILER
