"""OpenAI and every server that speaks its API (Azure OpenAI, Ollama, vLLM, LM Studio, a LiteLLM proxy, TEI's
OpenAI route): the connection settings, the key, the official client, and which of its errors are worth a retry.

The key comes from the environment variable ``api_key_env`` names (``OPENAI_API_KEY`` by default), never
from a config file, and is never written anywhere; ``api_key_env: null`` sends none (a local server).
Azure OpenAI: ``base_url: https://<resource>.openai.azure.com/openai/v1`` and ``key_header: api-key``.
``headers`` are sent with every request (not for secrets: they are written to the run's config.yaml).
``base_url: null`` is the client's own default: ``$OPENAI_BASE_URL``, else https://api.openai.com/v1.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import partial

from rag_bench.core.errors import ConfigError
from rag_bench.remote.http import MalformedAnswer
from rag_bench.remote.pace import lower_headers
from rag_bench.remote.refusal import refusal
from rag_bench.remote.retry import Verdict, parse_retry_after
from rag_bench.remote.slots import answered, sending

KEY_VARIABLE = "OPENAI_API_KEY"
NO_KEY = "none"  # what the client sends when no key is asked for (it insists on one)


@dataclass
class OpenAISettings:
    """How to reach an OpenAI-compatible server (beside ``ApiSettings``' base_url, retries and timeout)."""

    api_key_env: str | None = KEY_VARIABLE  # the environment variable holding the key; null = send none
    key_header: str | None = None  # null = "Authorization: Bearer <key>"; e.g. api-key for Azure OpenAI
    headers: dict[str, str] = field(default_factory=dict)  # more headers on every request (no secrets)

    def check_openai(self, group: str) -> None:
        if self.api_key_env is not None and not self.api_key_env.strip():
            raise ConfigError(f"{group}.api_key_env is empty; name the variable that holds the key, or null for none")
        for name in self.headers:
            if name.lower() in ("authorization", (self.key_header or "").lower()):
                raise ConfigError(
                    f"{group}.headers.{name} would carry the key in the config; put the key in an environment "
                    f"variable and name it with {group}.api_key_env"
                )


def openai_key(cfg: OpenAISettings, selected: str) -> str | None:
    """The key from ``cfg.api_key_env``; None when no key is asked for. ConfigError when the variable is unset."""
    if cfg.api_key_env is None:
        return None
    key = os.environ.get(cfg.api_key_env, "").strip()
    if not key:
        group = selected.split("=")[0]
        raise ConfigError(
            f"{selected} needs a key in the environment variable {cfg.api_key_env}: set it, or set "
            f"{group}.api_key_env=null for a server that needs no key"
        )
    return key


def openai_client(cfg, api_key: str | None):
    """The official client with its own retries off (ours count them), for ``cfg`` (OpenAISettings and ApiSettings)."""
    try:
        import openai
    except ImportError:
        raise ConfigError(
            "the OpenAI-compatible options need the openai package; install it with pip install 'rag-bench[providers]'"
        ) from None

    headers = dict(cfg.headers)
    if cfg.key_header and api_key:
        headers[cfg.key_header] = api_key
    return openai.OpenAI(
        api_key=api_key or NO_KEY,
        base_url=cfg.base_url,
        max_retries=0,
        timeout=cfg.timeout_s,
        default_headers=headers or None,
        # the client's own httpx defaults; a request takes a slot once built and frees it as its answer arrives
        http_client=openai.DefaultHttpxClient(event_hooks={"request": [sending], "response": [answered]}),
    )


def classify_openai(exc: Exception, group: str, key_variable: str | None) -> Verdict | None:
    """Retry 429, 5xx, timeouts, dropped connections and malformed answers; a 4xx names the setting to fix."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        headers = lower_headers(dict(exc.response.headers.items()))
        status = exc.status_code
        if status == 429:
            return Verdict(
                True, "HTTP 429 rate limited", parse_retry_after(headers.get("retry-after")), headers=headers
            )
        if status >= 500:
            return Verdict(True, f"HTTP {status} server error", headers=headers)
        return refusal(status, _detail(exc), group, key_variable)
    if isinstance(exc, openai.APITimeoutError):
        return Verdict(True, "no response before timeout_s")
    if isinstance(exc, openai.APIConnectionError):
        return Verdict(True, f"connection failed ({type(exc.__cause__).__name__})")
    if isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError | MalformedAnswer):
        return Verdict(True, f"the answer was malformed ({type(exc).__name__})")
    return None


def classifier(group: str, key_variable: str | None):
    """``classify_openai`` for ``call_with_retries``."""
    return partial(classify_openai, group=group, key_variable=key_variable)


def _detail(exc) -> str:
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error") if isinstance(body.get("error"), dict) else body
    return str(error.get("message") or exc.message)
