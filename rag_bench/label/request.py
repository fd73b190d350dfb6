"""Reading the parts of a labelling-app request that arrive as text: its body's length, query and path.

One rule for every number: ASCII digits ``0-9`` only, so no sign, space, underscore or digit of
another script (Python's ``int`` takes ``-1``, ``1_0`` and ``\\u0663``; ``str.isdigit`` passes
``\\u00b2``, which ``int`` refuses), and a value inside its bounds. Text is UTF-8 after
percent-decoding. Anything else raises ApiError with a 4xx status naming the header or parameter.
"""

from __future__ import annotations

from urllib.parse import unquote

MAX_FIELDS = 100  # query parameters in one request


class ApiError(Exception):
    """An HTTP error answer: status and message (``extra`` goes into the JSON answer too)."""

    def __init__(self, status: int, message: str, **extra) -> None:
        super().__init__(message)
        self.status, self.extra = status, extra


def whole_number(text: str, high: int) -> int | None:
    """``text`` as an int when it is ASCII digits only; None otherwise. Past ``high`` gives ``high + 1``, so a
    5000-digit value is "too large", not an error of ``int`` (which refuses strings over 4300 digits)."""
    if not text or not text.isascii() or not text.isdigit():
        return None
    if len(text.lstrip("0")) > len(str(high)):
        return high + 1
    return min(int(text), high + 1)


def content_length(headers, limit: int) -> int:
    """The body's length in bytes from ``Content-Length`` (0 when absent): 400 when it is not one whole number,
    411 for a ``Transfer-Encoding`` (bodies must say their length), 413 past ``limit``."""
    coding = headers.get("Transfer-Encoding")
    if coding is not None:
        fix = "send the body with a Content-Length"
        raise ApiError(411, f"Transfer-Encoding: {coding!r} is not supported (fix: {fix})")
    values = [value.strip(" \t") for value in headers.get_all("Content-Length") or []]
    if not values:
        return 0
    if len(set(values)) > 1:
        shown = " and ".join(repr(v) for v in dict.fromkeys(values))
        raise ApiError(400, f"Content-Length: sent twice, as {shown} (fix: send it once)")
    length = whole_number(values[0], limit)
    if length is None:
        raise ApiError(
            400, f"Content-Length: {values[0]!r} is not a whole number of bytes (fix: send the body's length in bytes)"
        )
    if length > limit:
        shown = values[0] if len(values[0]) <= 40 else values[0][:40] + "..."
        fix = "send one question at a time"
        raise ApiError(413, f"Content-Length: a body of {shown} bytes is over {limit} (fix: {fix})")
    return length


def query_params(query: str) -> dict[str, list[str]]:
    """The query string's parameters, as ``parse_qs`` gives them (blank values left out), strictly UTF-8; 400
    otherwise."""
    parts = [part for part in query.split("&") if part]
    if len(parts) > MAX_FIELDS:
        raise ApiError(400, f"query: {len(parts)} parameters, more than {MAX_FIELDS} (fix: send q and k only)")
    params: dict[str, list[str]] = {}
    for part in parts:
        name, _, value = part.replace("+", " ").partition("=")
        where = f"query: {name[:40]}"
        if value:
            params.setdefault(_text(name, where), []).append(_text(value, where))
    return params


def path_part(text: str) -> str:
    """A percent-encoded path segment (a document or question id) as text; 400 when it is not UTF-8."""
    return _text(text, "path:")


def int_param(query: dict[str, list[str]], name: str, default: int, low: int, high: int) -> int:
    """Query parameter ``name`` as a whole number from ``low`` to ``high`` (``default`` when absent); 400 otherwise."""
    raw = query.get(name, [str(default)])[0]
    value = whole_number(raw, high)
    if value is None or not low <= value <= high:
        shown = raw if len(raw) <= 40 else raw[:40] + "..."
        fix = f"e.g. {name}={default}"
        raise ApiError(400, f"{name}: {shown!r} must be a whole number from {low} to {high} (fix: {fix})")
    return value


def _text(raw: str, where: str) -> str:
    try:
        return unquote(raw, errors="strict")
    except UnicodeDecodeError:
        raise ApiError(400, f"{where} holds bytes that are not UTF-8 (fix: percent-encode UTF-8 text)") from None
