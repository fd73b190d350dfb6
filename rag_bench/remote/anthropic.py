"""The Anthropic Messages API for the steps that call an LLM (check-generation, contextualize).

One place for what both need: the key (from ``ANTHROPIC_API_KEY`` only, never written), the
official SDK imported lazily (the optional ``generate`` extra), and API failures turned into
one-line project errors that say what to check.
"""

from __future__ import annotations

import os

from rag_bench.core.errors import ConfigError, ServiceError

KEY_VARIABLE = "ANTHROPIC_API_KEY"


class MessagesClient:
    """An SDK client from a generator config: ``model``, ``base_url``, ``max_retries`` and the timeout."""

    def __init__(self, cfg, otherwise: str) -> None:
        """``otherwise`` completes the missing-key message, e.g. "or use generator=offline"."""
        if not cfg.model:
            raise ConfigError("generator.model is empty; set generator.model=<model id>, e.g. claude-haiku-4-5")
        api_key = os.environ.get(KEY_VARIABLE)
        if not api_key:
            raise ConfigError(f"generator=anthropic needs the {KEY_VARIABLE} environment variable; set it, {otherwise}")
        try:
            import anthropic
        except ImportError:
            raise ConfigError(
                "generator=anthropic needs the anthropic package; install it with pip install 'rag-bench[generate]'"
            ) from None
        self._sdk, self.cfg = anthropic, cfg
        self._client = anthropic.Anthropic(
            api_key=api_key, base_url=cfg.base_url, max_retries=cfg.max_retries, timeout=cfg.timeout_s
        )

    def create(self, check: str, **request):
        """``messages.create(**request)``; a rejected request's error says to check ``check``."""
        try:
            return self._client.messages.create(**request)
        except self._sdk.APIStatusError as exc:
            raise status_error(exc, check, self.cfg.max_retries) from None
        except self._sdk.APIConnectionError as exc:
            raise ServiceError(
                f"Anthropic API unreachable at {self._client.base_url} after {self.cfg.max_retries} retries "
                f"({type(exc).__name__}); check generator.base_url and the network"
            ) from None

    def close(self) -> None:
        self._client.close()


def status_error(exc, check: str, retries: int) -> Exception:
    """The project error for an HTTP error answer: the key, the request, or the service."""
    status, detail = exc.status_code, error_detail(exc)
    if status in (401, 403):
        return ConfigError(f"the Anthropic API refused {KEY_VARIABLE} ({status}: {detail}); set a valid key")
    if status in (400, 404):
        return ConfigError(f"the Anthropic API rejected the request ({status}: {detail}); check {check}")
    return ServiceError(f"the Anthropic API failed ({status}: {detail}) after {retries} retries")


def error_detail(exc) -> str:
    """The API's own error message (first line, at most 200 characters)."""
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error") if isinstance(body.get("error"), dict) else {}
    return str(error.get("message") or exc.message).splitlines()[0][:200]
