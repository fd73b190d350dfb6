"""``generator=anthropic``: the Anthropic Messages API through the official ``anthropic`` SDK.

The SDK is an optional extra, imported only here. The key comes from ``ANTHROPIC_API_KEY``
alone and is never stored, logged or written. Failed requests (408/409/429/5xx,
connection errors) are retried by the SDK ``max_retries`` times with backoff.
"""

from __future__ import annotations

import os

from rag_bench.errors import ConfigError, ServiceError
from rag_bench.generate.base import Answer
from rag_bench.generate.config import GeneratorConfig
from rag_bench.generate.prompt import Prompt

KEY_VARIABLE = "ANTHROPIC_API_KEY"


class AnthropicGenerator:
    """Answers with one Messages API call per prompt."""

    name = "anthropic"

    def __init__(self, cfg: GeneratorConfig) -> None:
        if not cfg.model:
            raise ConfigError("generator.model is empty; set generator.model=<model id>, e.g. claude-haiku-4-5")
        api_key = os.environ.get(KEY_VARIABLE)
        if not api_key:
            raise ConfigError(
                f"generator=anthropic needs the {KEY_VARIABLE} environment variable; set it, "
                "or choose generator=extractive or generator=replay"
            )
        try:
            import anthropic
        except ImportError:
            raise ConfigError(
                "generator=anthropic needs the anthropic package; install it with pip install 'rag-bench[generate]'"
            ) from None
        self._sdk = anthropic
        self._client = anthropic.Anthropic(
            api_key=api_key, base_url=cfg.base_url, max_retries=cfg.max_retries, timeout=cfg.timeout
        )
        self.cfg = cfg
        self.key = f"anthropic/{cfg.model}/max_tokens={cfg.max_tokens}/temperature={cfg.temperature!r}"

    def answer(self, prompt: Prompt) -> Answer:
        extra = {} if self.cfg.temperature is None else {"extra_body": {"temperature": self.cfg.temperature}}
        try:
            message = self._client.messages.create(
                model=self.cfg.model,
                max_tokens=self.cfg.max_tokens,
                system=prompt.system,
                messages=[{"role": "user", "content": prompt.user}],
                **extra,
            )
        except self._sdk.APIStatusError as exc:
            raise self._status_error(exc) from None
        except self._sdk.APIConnectionError as exc:
            raise ServiceError(
                f"Anthropic API unreachable at {self._client.base_url} after {self.cfg.max_retries} retries "
                f"({type(exc).__name__}); check generator.base_url and the network"
            ) from None
        text = "".join(block.text for block in message.content if block.type == "text")
        usage = message.usage
        return Answer.from_text(text.strip(), usage.input_tokens or 0, usage.output_tokens or 0)

    def close(self) -> None:
        self._client.close()

    def _status_error(self, exc) -> Exception:
        status = exc.status_code
        detail = _error_message(exc)
        if status in (401, 403):
            return ConfigError(f"the Anthropic API refused {KEY_VARIABLE} ({status}: {detail}); set a valid key")
        if status in (400, 404):
            return ConfigError(
                f"the Anthropic API rejected the request ({status}: {detail}); check generator.model "
                f"({self.cfg.model!r}), generator.max_tokens and generator.temperature"
            )
        return ServiceError(f"the Anthropic API failed ({status}: {detail}) after {self.cfg.max_retries} retries")


def _error_message(exc) -> str:
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error") if isinstance(body.get("error"), dict) else {}
    return str(error.get("message") or exc.message).splitlines()[0][:200]
