"""Redirects that never carry a request to another origin: an ``urllib`` opener for services we send secrets.

An origin is (scheme, host, port) with the scheme's default port filled in (RFC 6454 section 4):
``http://Svc:80/a`` and ``http://svc/b`` share one; ``https://svc/`` and ``http://svc:8080/`` are others.
A redirect inside the origin is handled as ``urllib`` always does; one to another origin raises
ServiceError naming both URLs before anything (headers, bearer token, body) is sent there.
"""

from __future__ import annotations

import urllib.request
from urllib.parse import urlsplit

from rag_bench.core.errors import ServiceError

DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url: str) -> tuple[str, str, int | None] | None:
    """``(scheme, host, port)`` of ``url``, lower-cased, default port filled in; None when the port is not a number."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        return None
    return scheme, (parts.hostname or "").lower(), port if port is not None else DEFAULT_PORTS.get(scheme)


class SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only inside the request's origin; ``setting`` names the URL's key in messages."""

    def __init__(self, setting: str) -> None:
        self.setting = setting

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        here = origin(req.full_url)
        if here is None or origin(newurl) != here:
            fp.close()
            raise ServiceError(
                f"{self.setting} {req.full_url} redirected (HTTP {code}) to {newurl}, another origin; "
                "rag-bench sends no question or credential there "
                f"(fix: if you trust that address, set {self.setting}={newurl})"
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def same_origin_opener(setting: str) -> urllib.request.OpenerDirector:
    """An opener like ``urllib.request.urlopen``'s whose redirects stay inside the origin they start from."""
    return urllib.request.build_opener(SameOriginRedirects(setting))
