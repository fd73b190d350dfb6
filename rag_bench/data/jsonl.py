"""Read JSON Lines with line numbers, turning every defect into a DataError."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from rag_bench.errors import DataError


def read_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSONL file."""
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise DataError(path, f"cannot be read ({exc.strerror})", fix="check the dataset path") from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(
                    path,
                    f"malformed JSON ({exc.msg} at column {exc.colno})",
                    line=number,
                    fix="write one JSON object per line",
                ) from None
            if not isinstance(value, dict):
                raise DataError(path, f"expected a JSON object, got {type(value).__name__}", line=number)
            yield number, value


def write_jsonl(path: Path, rows: list[dict]) -> None:
    """Write ``rows`` as JSON Lines (UTF-8, one object per line)."""
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def field(path: Path, line: int, obj: dict, name: str, kind: type | tuple[type, ...], required: bool = True):
    """``obj[name]`` checked for type; a DataError naming file, line and field otherwise."""
    if name not in obj or obj[name] is None:
        if required:
            raise DataError(path, "missing", line=line, field=name, fix=f"add a '{name}' field")
        return None
    value = obj[name]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        want = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise DataError(path, f"must be {want}, got {type(value).__name__}", line=line, field=name)
    return value


def reject_unknown(path: Path, line: int, obj: dict, allowed: set[str]) -> None:
    """A DataError naming the first field of ``obj`` not in ``allowed`` (a typo must not pass silently)."""
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise DataError(
            path,
            f"unknown field {unknown[0]!r}",
            line=line,
            field=unknown[0],
            fix=f"allowed fields are {', '.join(sorted(allowed))}",
        )
