"""Cohere: the key, the official client (API v2), and which of its errors are worth a retry.

The key comes from ``CO_API_KEY`` (the variable the Cohere SDK reads) or the variable ``api_key_env``
names, never from a config file, and is never written anywhere.
"""

from __future__ import annotations

import json
import os
from functools import partial

from rag_bench.core.errors import ConfigError
from rag_bench.remote.http import MalformedAnswer
from rag_bench.remote.pace import lower_headers
from rag_bench.remote.refusal import refusal
from rag_bench.remote.retry import Verdict, parse_retry_after
from rag_bench.remote.slots import answered, sending

KEY_VARIABLE = "CO_API_KEY"
NO_RETRIES = {"max_retries": 0}  # every call's request_options: the SDK's own retries off, ours count them


def cohere_key(variable: str, selected: str) -> str:
    """The key in environment variable ``variable``; ConfigError naming it when unset."""
    key = os.environ.get(variable, "").strip()
    if not key:
        raise ConfigError(f"{selected} needs a Cohere API key: set the environment variable {variable}")
    return key


def cohere_client(api_key: str, base_url: str | None, timeout_s: float):
    """The official v2 client (calls pass ``NO_RETRIES``); ``base_url`` None = ``$CO_API_URL`` (the SDK's own
    variable), else Cohere's endpoint."""
    try:
        import cohere
        import httpx
    except ImportError:
        raise ConfigError(
            "the cohere options need the cohere package; install it with pip install 'rag-bench[providers]'"
        ) from None

    base_url = base_url or os.environ.get("CO_API_URL") or None
    # the SDK's own httpx settings (its timeout, redirects followed); a request takes a slot once built and frees
    # it as its answer arrives (slots.py), before the SDK builds its answer object
    hooks = {"request": [sending], "response": [answered]}
    http = httpx.Client(timeout=timeout_s, follow_redirects=True, event_hooks=hooks)
    return cohere.ClientV2(api_key=api_key, base_url=base_url, timeout=timeout_s, httpx_client=http)


def classify_cohere(exc: Exception, group: str, key_variable: str) -> Verdict | None:
    """Retry 429, 5xx, timeouts, dropped connections and malformed answers; a 4xx names the setting to fix."""
    import httpx
    import pydantic
    from cohere.core.api_error import ApiError

    if isinstance(exc, ApiError):
        headers = lower_headers(getattr(exc, "headers", None))  # cohere 5.15 keeps no headers on its errors
        status = exc.status_code
        if status == 429:
            return Verdict(
                True, "HTTP 429 rate limited", parse_retry_after(headers.get("retry-after")), headers=headers
            )
        if status is None or status >= 500:
            return Verdict(True, f"HTTP {status} server error", headers=headers)
        if 200 <= status < 300:  # the SDK raises this for a 2xx body it cannot read
            return Verdict(True, "the answer was malformed (not JSON)")
        return refusal(status, _detail(exc.body), group, key_variable)
    if isinstance(exc, httpx.TimeoutException):
        return Verdict(True, "no response before timeout_s")
    if isinstance(exc, httpx.TransportError):
        return Verdict(True, f"connection failed ({type(exc).__name__})")
    if isinstance(exc, json.JSONDecodeError | pydantic.ValidationError | MalformedAnswer):
        return Verdict(True, f"the answer was malformed ({type(exc).__name__})")
    return None


def classifier(group: str, key_variable: str):
    """``classify_cohere`` for ``call_with_retries``."""
    return partial(classify_cohere, group=group, key_variable=key_variable)


def _detail(body: object) -> str:
    if isinstance(body, dict):
        return str(body.get("message") or body)
    return str(body)
