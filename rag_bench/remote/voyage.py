"""Voyage AI: the key, the official client, and which of its errors are worth a retry."""

from __future__ import annotations

import math
import os
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from rag_bench.core.errors import ConfigError
from rag_bench.remote.pace import lower_headers
from rag_bench.remote.refusal import refusal
from rag_bench.remote.retry import Verdict, parse_retry_after
from rag_bench.remote.slots import answered, sending


def voyage_api_key(selected: str) -> str:
    """The key from ``$VOYAGE_API_KEY_PATH`` (a file, as the client reads it) or ``$VOYAGE_API_KEY``."""
    path = os.environ.get("VOYAGE_API_KEY_PATH")
    if path:
        try:
            key = Path(path).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            problem = exc.strerror or exc
            raise ConfigError(f"{selected} needs a key, but VOYAGE_API_KEY_PATH cannot be read: {problem}") from None
        if key:
            return key
    key = os.environ.get("VOYAGE_API_KEY", "").strip()
    if not key:
        raise ConfigError(
            f"{selected} needs a Voyage AI API key: set VOYAGE_API_KEY (or VOYAGE_API_KEY_PATH to a file holding it)"
        )
    return key


def voyage_base_url(url: str | None) -> str | None:
    """The API root: ``http://host:port`` gains ``/v1``; a URL with a path is kept; None = the client's default."""
    if url is None:
        return None
    url = url.rstrip("/")
    return url + "/v1" if urlsplit(url).path == "" else url


def voyage_client(api_key: str, base_url: str | None, timeout_s: float):
    """The official client with its own retries off, so that ours are the only ones (and counted)."""
    import voyageai

    return voyageai.Client(api_key=api_key, max_retries=0, timeout=timeout_s, base_url=voyage_base_url(base_url))


def classify_voyage(exc: Exception, group: str = "embedder") -> Verdict | None:
    """Retry 429, 5xx, timeouts and connection errors; fail at once on the rest; None for non-API errors."""
    from voyageai import error

    if not isinstance(exc, error.VoyageError):
        return None
    status = exc.http_status
    headers = lower_headers(exc.headers)
    if isinstance(exc, error.RateLimitError):
        return Verdict(True, "HTTP 429 rate limited", parse_retry_after(headers.get("retry-after")), headers=headers)
    if isinstance(exc, error.Timeout):
        return Verdict(True, "no response before timeout_s")
    if isinstance(exc, error.APIConnectionError):
        return Verdict(True, f"connection failed ({type(exc.__cause__).__name__})")
    if status is not None and status >= 500:
        return Verdict(True, f"HTTP {status} server error", headers=headers)
    if isinstance(exc, error.AuthenticationError):
        return Verdict(False, "HTTP 401: the API key was rejected; set VOYAGE_API_KEY to a valid key", setting=True)
    if status is not None and 400 <= status < 500:
        return refusal(status, str(exc.user_message), group, "VOYAGE_API_KEY")
    return Verdict(False, f"HTTP {status}: {exc.user_message}" if status else str(exc.user_message))


def redact(text: str, secret: str) -> str:
    """``text`` with every occurrence of ``secret`` masked."""
    return text.replace(secret, "***") if secret else text


_SESSION = threading.local()  # .made: when this thread's voyageai session was made here (renewed here, not there)


def hook_session() -> bool:
    """Make this thread's voyageai session take its request's slot as the request goes out and free it as the
    answer arrives (``slots.py``); True once it does.

    The voyageai client (0.3.7 to 0.5 at least) sends through one requests session per thread, kept in its
    ``api_requestor._thread_context`` and made by its ``_make_session`` (which honours the public
    ``voyageai.requestssession``). Each of the session's adapters is wrapped so that ``slots.sending`` runs
    once the request is built, just before it is sent, and a response hook runs ``slots.answered`` once the
    status line and headers are in, before the client reads and decodes the answer. voyageai replaces a
    session older than ``MAX_SESSION_LIFETIME_SECS`` at the start of a request, which would send that request
    unslotted; so the session's age is kept here (its ``session_create_time`` set to infinity) and it is
    replaced here, at the same age, before the request. False where that is not so (another voyageai): the
    slot is then taken here, before the request is built, and voyageai renews its session itself.
    """
    try:
        from voyageai.api_resources import api_requestor

        context = api_requestor._thread_context
        made = getattr(_SESSION, "made", None)
        if made is None or time.time() - made >= api_requestor.MAX_SESSION_LIFETIME_SECS:
            if getattr(context, "session", None) is not None:
                context.session.close()
            context.session = api_requestor._make_session()
            _SESSION.made = context.session_create_time = time.time()  # as voyageai would make it
        session = context.session
        hooks = session.hooks["response"]
        adapters = list(session.adapters.items())
    except (ImportError, AttributeError, KeyError, TypeError):
        sending()
        return False
    context.session_create_time = math.inf  # voyageai's "time.time() - created >= lifetime" never holds
    if answered not in hooks:
        hooks.append(answered)
    for prefix, adapter in adapters:
        if not getattr(adapter, "slotted", False):
            session.mount(prefix, _slotted(adapter))
    return True


def _slotted(adapter):
    """``adapter`` (a requests transport adapter) taking this thread's request slot before each send."""
    from requests.adapters import BaseAdapter

    class Slotted(BaseAdapter):
        slotted = True

        def send(self, request, **kwargs):
            sending()
            return adapter.send(request, **kwargs)

        def close(self):
            adapter.close()

    return Slotted()
