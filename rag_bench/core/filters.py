"""Metadata filters: a small language, parsed and checked once, evaluated on documents' metadata.

A question's ``filter`` is a JSON object (the operators of MongoDB's query language, a subset):

    {"product": "kg-200"}                        equality
    {"version": {"$in": ["4.1", "4.2"]}}         any of the values;  "$nin": none of them
    {"date": {"$gte": 20240101, "$lt": 20250101}} ranges on numbers: $gt, $gte, $lt, $lte
    {"$and": [F, F, ...]}, {"$or": [F, F, ...]}   and several keys in one object mean "and"

Values are strings, numbers or booleans; a boolean equals only a boolean, and 1 equals 1.0.
A list-valued field (ACL groups) matches when any element matches: ``{"acl": "finance"}``
matches ``"acl": ["finance", "exec"]``. ``$nin`` is the negation of ``$in``: it matches a
document none of whose elements is listed, and one without the field. A missing field matches
no equality, ``$in`` or range. Dates are compared as numbers (write them as ``20240314``), so
every backend (Chroma compares only numbers) orders them alike.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rag_bench.core.errors import DataError

RANGES = ("$gt", "$gte", "$lt", "$lte")
OPERATORS = ("$eq", "$in", "$nin", *RANGES)
Scalar = str | int | float | bool


@dataclass(frozen=True)
class Compare:
    """``field op value``: op is one of OPERATORS; ``value`` a scalar, or a tuple for $in / $nin."""

    field: str
    op: str
    value: Scalar | tuple[Scalar, ...]


@dataclass(frozen=True)
class Combine:
    """``$and`` (``all_of`` True) or ``$or`` of two or more parts."""

    all_of: bool
    parts: tuple[Node, ...]


Node = Compare | Combine


@dataclass(frozen=True)
class Filter:
    """A parsed filter: ``source`` is its canonical JSON (sorted keys), ``node`` the expression tree."""

    source: str
    node: Node

    def matches(self, metadata: Mapping[str, object]) -> bool:
        return evaluate(self.node, metadata)

    @property
    def fields(self) -> frozenset[str]:
        """Every metadata field the filter names."""
        return _fields(self.node)


def parse_filter(obj: object, path: str | Path = "filter", line: int | None = None, field: str = "filter") -> Filter:
    """``obj`` (decoded JSON) as a Filter; a DataError naming ``path``, ``line`` and the bad part otherwise."""
    node = _parse(obj, _Where(path, line), field)
    return Filter(json.dumps(obj, sort_keys=True, separators=(",", ":")), node)


@dataclass(frozen=True)
class _Where:
    path: str | Path
    line: int | None

    def fail(self, field: str, problem: str, fix: str) -> DataError:
        return DataError(self.path, problem, line=self.line, field=field, fix=fix)


def _parse(obj: object, where: _Where, at: str) -> Node:
    if not isinstance(obj, dict) or not obj:
        raise where.fail(at, f"must be a non-empty object, got {obj!r}", 'write {"field": value} or {"$and": [...]}')
    parts = [_parse_key(key, value, where, f"{at}.{key}") for key, value in obj.items()]
    return parts[0] if len(parts) == 1 else Combine(True, tuple(parts))


def _parse_key(key: str, value: object, where: _Where, at: str) -> Node:
    if key in ("$and", "$or"):
        if not isinstance(value, list) or not value:
            raise where.fail(at, f"must be a non-empty list of filters, got {value!r}", f'write {{"{key}": [F, F]}}')
        parts = tuple(_parse(part, where, f"{at}[{i}]") for i, part in enumerate(value))
        return parts[0] if len(parts) == 1 else Combine(key == "$and", parts)
    if key.startswith("$") or not key:
        raise where.fail(at, f"unknown operator {key!r}", "use $and / $or at the top, or name a metadata field")
    if not isinstance(value, dict):
        return Compare(key, "$eq", _scalar(value, where, at))
    if not value:
        raise where.fail(at, "must name an operator", f"use one of {', '.join(OPERATORS)}")
    tests = [_parse_operator(key, op, operand, where, f"{at}.{op}") for op, operand in value.items()]
    return tests[0] if len(tests) == 1 else Combine(True, tuple(tests))


def _parse_operator(key: str, op: str, operand: object, where: _Where, at: str) -> Compare:
    if op not in OPERATORS:
        raise where.fail(at, f"unknown operator {op!r}", f"use one of {', '.join(OPERATORS)}")
    if op in ("$in", "$nin"):
        if not isinstance(operand, list) or not operand:
            raise where.fail(
                at, f"must be a non-empty list of values, got {operand!r}", f'write {{"{op}": ["a", "b"]}}'
            )
        return Compare(key, op, tuple(_scalar(v, where, f"{at}[{i}]") for i, v in enumerate(operand)))
    if op in RANGES and (isinstance(operand, bool) or not isinstance(operand, int | float)):
        raise where.fail(at, f"compares numbers only, got {operand!r}", "write dates as numbers, e.g. 20240314")
    return Compare(key, op, _scalar(operand, where, at))


def _scalar(value: object, where: _Where, at: str) -> Scalar:
    if isinstance(value, str | bool | int | float) and not (isinstance(value, float) and not np.isfinite(value)):
        return value
    raise where.fail(at, f"must be a string, number or boolean, got {value!r}", "compare with one plain value")


def _fields(node: Node) -> frozenset[str]:
    if isinstance(node, Compare):
        return frozenset({node.field})
    return frozenset().union(*(_fields(p) for p in node.parts))


def same(a: object, b: object) -> bool:
    """Typed equality: strings equal strings, booleans booleans, numbers numbers (1 == 1.0)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    return isinstance(a, int | float) and isinstance(b, int | float) and a == b


def _number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


_ORDER = {
    "$gt": lambda x, v: x > v,
    "$gte": lambda x, v: x >= v,
    "$lt": lambda x, v: x < v,
    "$lte": lambda x, v: x <= v,
}


def evaluate(node: Node, metadata: Mapping[str, object]) -> bool:
    """Whether ``metadata`` (one document's) satisfies ``node``; list values match when any element does."""
    if isinstance(node, Combine):
        test = all if node.all_of else any
        return test(evaluate(part, metadata) for part in node.parts)
    present = node.field in metadata
    raw = metadata.get(node.field)
    elements = list(raw) if isinstance(raw, list | tuple) else [raw]
    if node.op == "$eq":
        return present and any(same(x, node.value) for x in elements)
    if node.op in ("$in", "$nin"):
        found = present and any(same(x, v) for x in elements for v in node.value)
        return found if node.op == "$in" else not found
    return present and any(_number(x) and _ORDER[node.op](x, node.value) for x in elements)


class MetadataTable:
    """Masks of filters over a chunk table: each distinct metadata object is evaluated once, then gathered."""

    def __init__(self, metadata: Sequence[Mapping[str, object]]) -> None:
        keys: dict[str, int] = {}
        self.distinct: list[Mapping[str, object]] = []
        codes = np.empty(len(metadata), dtype=np.int64)  # (n_chunks,) index into ``distinct``
        for i, meta in enumerate(metadata):
            key = json.dumps(dict(meta), sort_keys=True, default=repr)
            if key not in keys:
                keys[key] = len(self.distinct)
                self.distinct.append(meta)
            codes[i] = keys[key]
        self.codes = codes
        self._masks: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.codes)

    def mask(self, flt: Filter) -> np.ndarray:
        """(n_chunks,) bool: the chunks whose document the filter allows (kept for the process, read-only)."""
        if flt.source not in self._masks:
            allowed = np.fromiter((flt.matches(m) for m in self.distinct), bool, len(self.distinct))
            mask = allowed[self.codes]
            mask.flags.writeable = False
            self._masks[flt.source] = mask
        return self._masks[flt.source]

    def masks(self, filters: Sequence[Filter | None]) -> list[np.ndarray | None]:
        """One mask per query (None where a query has no filter)."""
        return [None if f is None else self.mask(f) for f in filters]


def groups(filters: Sequence[Filter | None]) -> dict[str | None, list[int]]:
    """Query rows by filter (None: unfiltered), so each distinct filter is searched once."""
    out: dict[str | None, list[int]] = {}
    for row, flt in enumerate(filters):
        out.setdefault(None if flt is None else flt.source, []).append(row)
    return out
