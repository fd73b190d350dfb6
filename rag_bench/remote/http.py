"""JSON over HTTP for model servers that have no official Python client (TEI's ``/embed`` and ``/rerank``,
the ``/v1/rerank`` schema of Jina, vLLM and others): one POST, and which of its failures are worth a retry.

Redirects never leave the origin of ``base_url`` (``redirects.py``), so a bearer token is sent to no
other host. A key is read from the environment variable a setting names, never from a config file.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import urllib.error
import urllib.request

from rag_bench.core.errors import ConfigError
from rag_bench.remote.pace import lower_headers
from rag_bench.remote.redirects import same_origin_opener
from rag_bench.remote.refusal import refusal
from rag_bench.remote.retry import Verdict, parse_retry_after
from rag_bench.remote.slots import answered, sending

SHOWN = 200  # characters of a server's error quoted in a message


class MalformedAnswer(Exception):
    """A 2xx answer that does not hold what was asked: not JSON, or a vector or score missing or misplaced."""


class JsonApi:
    """POSTs JSON to ``base_url`` + a route; answers are ``(json, lower-cased headers)``."""

    def __init__(self, base_url: str, setting: str, api_key: str | None, timeout_s: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self._opener = same_origin_opener(setting)
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"

    def post(self, route: str, body: dict | None) -> tuple[object, dict[str, str]]:
        """POST ``body`` as JSON (None: a GET) to the route; the answer's JSON and lower-cased headers."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(
            self.base_url + route, data=data, headers=self._headers, method="GET" if body is None else "POST"
        )
        sending()  # the request is built: it takes a slot (slots.py) as it goes out
        with self._opener.open(request, timeout=self.timeout_s) as answer:
            answered(answer)  # the status line and headers are in: this request's slot goes to the next one
            raw, headers = answer.read(), lower_headers(dict(answer.headers.items()))
        try:
            return json.loads(raw), headers
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise MalformedAnswer(f"the answer is not JSON: {raw[:SHOWN]!r}") from None


def bearer_key(variable: str | None, setting: str) -> str | None:
    """The key in environment variable ``variable`` (None when no variable is named); ConfigError when it is empty."""
    if not variable:
        return None
    key = os.environ.get(variable, "").strip()
    if not key:
        raise ConfigError(f"{setting}={variable} names an environment variable that is not set; export {variable}")
    return key


def classify_http(exc: Exception, group: str, key_variable: str | None) -> Verdict | None:
    """Retry 429, 5xx, timeouts, dropped connections and malformed answers; a 4xx names the setting to fix."""
    if isinstance(exc, MalformedAnswer):
        return Verdict(True, str(exc))
    if isinstance(exc, urllib.error.HTTPError):
        headers = lower_headers(dict(exc.headers.items())) if exc.headers else {}
        if exc.code == 429:
            return Verdict(
                True, "HTTP 429 rate limited", parse_retry_after(headers.get("retry-after")), headers=headers
            )
        if exc.code >= 500:
            return Verdict(True, f"HTTP {exc.code} server error", headers=headers)
        return refusal(exc.code, error_message(exc.read()), group, key_variable)
    return transport_verdict(exc)


def transport_verdict(exc: Exception, say_reason: bool = False) -> Verdict | None:
    """A retry for a timeout, a refused, reset or dropped connection (urllib's or the socket's own); else None.

    ``say_reason`` quotes the socket's message after its type (an unresolvable host's name, say).
    """
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, TimeoutError | socket.timeout):
        return Verdict(True, "no response before timeout_s")
    if isinstance(reason, ConnectionRefusedError):
        return Verdict(True, "connection refused: nothing listens there")
    if isinstance(reason, OSError | http.client.HTTPException):  # reset, dropped, unresolvable host
        return Verdict(True, f"connection failed ({type(reason).__name__}{f': {reason}' if say_reason else ''})")
    return None


def error_message(raw: bytes) -> str:
    """An error body's message: its JSON's ``error.message``, ``message``, ``detail`` or ``error``, else its text."""
    text = raw[: 4 * SHOWN].decode("utf-8", "replace")
    try:
        body = json.loads(text)
    except json.JSONDecodeError:
        return text[:SHOWN]
    if isinstance(body, dict):
        error = body.get("error")
        for found in (
            (error or {}).get("message") if isinstance(error, dict) else error,
            body.get("message"),
            body.get("detail"),
        ):
            if isinstance(found, str) and found:
                return found[:SHOWN]
    return text[:SHOWN]
