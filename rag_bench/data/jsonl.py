"""Read JSON Lines with line numbers, turning every defect into a DataError.

Lines are split on ``\\n`` alone (a ``\\r`` before it is JSON whitespace) and decoded as
UTF-8; a BOM at the start of the file is skipped. A line is refused, with its number and
the field concerned, when it holds bytes that are not UTF-8, a lone surrogate (a
``\\ud800``-style escape without its pair), ``NaN``/``Infinity`` or a number too large
for a float, an integer of more than 4,300 digits, or nesting too deep to parse.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.core.files import write_bytes

BOM = b"\xef\xbb\xbf"
_SURROGATE = re.compile("[\ud800-\udfff]")
# JSON makes a surrogate only from a \uD800-\uDFFF escape (strict UTF-8 holds none): a line without one skips the walk
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
UTF8_FIX = "save the file as UTF-8"
SURROGATE_FIX = "write the character itself, or a complete surrogate pair such as \\ud83d\\ude80"


class _NotFinite(ValueError):
    """A JSON number that is not a finite float (NaN, Infinity, 1e400)."""


def read_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSONL file."""
    try:
        with Path(path).open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if number == 1 and raw.startswith(BOM):
                    raw = raw[len(BOM) :]
                if raw.strip():
                    yield number, parse_line(path, number, raw)
    except OSError as exc:
        raise DataError(path, f"cannot be read ({exc.strerror})", fix="check the dataset path") from None


def parse_line(path: Path | str, number: int | None, raw: bytes) -> dict:
    """One JSONL line's object; a DataError naming the line (and field) for anything but clean JSON."""
    try:
        raw.decode("utf-8")
        bad_byte = None
    except UnicodeDecodeError as exc:
        bad_byte = (raw[exc.start], exc.start)
    text = raw.decode("utf-8", errors="surrogateescape")  # bad bytes become U+DC80..U+DCFF, found below
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        if bad_byte is not None:
            raise DataError(path, _bad_bytes(bad_byte), line=number, fix=UTF8_FIX) from None
        raise DataError(
            path, f"malformed JSON ({exc.msg} at column {exc.colno})", line=number, fix="write one JSON object per line"
        ) from None
    except _NotFinite as exc:
        raise DataError(
            path, f"{exc} is not a finite number", line=number, fix="write a finite number, or null"
        ) from None
    except ValueError as exc:  # int() refuses more than sys.get_int_max_str_digits() digits
        raise DataError(
            path, "holds an integer of more than 4300 digits", line=number, fix="write a smaller number"
        ) from exc
    except RecursionError:
        raise DataError(path, "is nested too deeply to parse", line=number, fix="flatten the JSON") from None
    if not isinstance(value, dict):
        raise DataError(
            path, f"expected a JSON object, got {type(value).__name__}", line=number, fix="write one object per line"
        )
    where = surrogate_field(value) if bad_byte is not None or _SURROGATE_ESCAPE.search(raw) else None
    if where is not None:
        name, char = where
        if bad_byte is not None and "\udc80" <= char <= "\udcff":  # a byte that surrogateescape kept
            problem, fix = _bad_bytes((ord(char) - 0xDC00, None)), UTF8_FIX
        else:
            problem, fix = f"holds a lone surrogate \\u{ord(char):04x}", SURROGATE_FIX
        raise DataError(path, problem, line=number, field=name, fix=fix)
    return value


def _bad_bytes(found: tuple[int, int | None]) -> str:
    byte, at = found
    return f"holds bytes that are not UTF-8 (0x{byte:02x}{'' if at is None else f' at byte {at}'})"


def _refuse_constant(name: str) -> float:
    raise _NotFinite(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise _NotFinite(text)
    return value


def surrogate_field(value: object, where: str = "") -> tuple[str, str] | None:
    """``(field path, character)`` of the first string (key or value) holding a surrogate code point."""
    if isinstance(value, str):
        found = _SURROGATE.search(value)
        return (where, found.group()) if found else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        name = f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}" if where else key
        found = surrogate_field(key, name) if isinstance(key, str) else None
        found = found or surrogate_field(item, name)
        if found:
            return found
    return None


def write_jsonl(path: Path, rows: list[dict]) -> None:
    """Write ``rows`` as JSON Lines (UTF-8, one object per line), atomically."""
    write_bytes(path, jsonl_bytes(rows))


def jsonl_bytes(rows: list[dict]) -> bytes:
    """``rows`` as JSON Lines: UTF-8, one object per line, non-ASCII kept readable."""
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode("utf-8")


def describe(kind: type | tuple[type, ...]) -> str:
    return kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)


def field(path: Path, line: int | None, obj: dict, name: str, kind: type | tuple[type, ...], required: bool = True):
    """``obj[name]`` checked for type; a DataError naming file, line and field otherwise."""
    if name not in obj or obj[name] is None:
        if required:
            raise DataError(path, "missing", line=line, field=name, fix=f"add a '{name}' field")
        return None
    value = obj[name]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        want = describe(kind)
        raise DataError(
            path,
            f"must be {want}, got {type(value).__name__}",
            line=line,
            field=name,
            fix=f"write {name} as a JSON {_JSON_NAMES.get(want, want)}",
        )
    return value


_JSON_NAMES = {
    "str": "string",
    "int": "integer",
    "str or int": "string (or integer)",
    "list": "list",
    "dict": "object",
    "bool": "true or false",
    "float": "number",
}


def reject_unknown(path: Path, line: int | None, obj: dict, allowed: set[str], where: str = "") -> None:
    """A DataError naming the first field of ``obj`` not in ``allowed`` (a typo must not pass silently)."""
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise DataError(
            path,
            f"unknown field {unknown[0]!r}",
            line=line,
            field=f"{where}.{unknown[0]}" if where else unknown[0],
            fix=f"allowed fields are {', '.join(sorted(allowed))}",
        )
