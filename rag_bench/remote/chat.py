"""Chat completions from OpenAI or any server that speaks its ``/v1/chat/completions`` route (Azure OpenAI,
Ollama, vLLM, LM Studio, a LiteLLM proxy), for the verbs that call an LLM (``generator=openai``).

Each request goes through ``call_with_retries`` (429 with Retry-After, 5xx, resets, timeouts, malformed
answers), paced under the rate limit the server announces (``pace.py``); the key comes from the variable
``api_key_env`` names and is never written (``openai.py``). Prompt caching as OpenAI allows it: the API
caches a prompt's longest prefix seen before on its own (prompts of 1,024 tokens or more, in steps of 128;
platform.openai.com/docs/guides/prompt-caching), so callers put the stable part (instructions, the
document) first and the part that changes last; the answer's ``usage.prompt_tokens_details.cached_tokens``,
where the server reports it, is counted as ``cache_read`` and priced at the table's cached-input price.

Token counts per reply: ``input`` = prompt_tokens - cached_tokens, ``cache_read`` = cached_tokens,
``output`` = completion_tokens (OpenAI bills no cache write).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import urlsplit

from rag_bench.core.cache import DiskCache, digest
from rag_bench.core.errors import ConfigError, ServiceError
from rag_bench.remote.http import MalformedAnswer
from rag_bench.remote.openai import OpenAISettings, classifier, openai_client, openai_key
from rag_bench.remote.pace import Pacer
from rag_bench.remote.prices import Price, llm_cost, model_price
from rag_bench.remote.retry import CallFailed, RetryPolicy, bounded_map, call_with_retries
from rag_bench.remote.settings import ApiSettings
from rag_bench.remote.usage import Usage

LIMIT_FIELDS = ("max_tokens", "max_completion_tokens")
T = TypeVar("T")


@dataclass
class ChatSettings(OpenAISettings, ApiSettings):
    """An OpenAI-compatible chat model; the verb's settings add ``name`` and its own defaults."""

    model: str | None = "gpt-4o-mini"
    max_tokens: int = 512  # reply limit
    limit_field: str = "max_tokens"  # the request field that carries it; max_completion_tokens for OpenAI's o-series
    temperature: float | None = None  # null = not sent (the server's default)
    max_retries: int = 3
    input_price: float | None = None  # USD per million input tokens; null = configs/prices.yaml
    output_price: float | None = None  # USD per million output tokens; null = the table's

    def __post_init__(self) -> None:
        self.check_api("generator")
        self.check_openai("generator")
        if self.max_tokens < 1:
            raise ConfigError(f"generator.max_tokens ({self.max_tokens}) must be at least 1")
        if self.limit_field not in LIMIT_FIELDS:
            raise ConfigError(
                f"generator.limit_field ({self.limit_field!r}) must be one of {', '.join(LIMIT_FIELDS)}: "
                "max_tokens for most servers, max_completion_tokens for OpenAI's reasoning models (o-series, gpt-5)"
            )
        if self.temperature is not None and not 0 <= self.temperature <= 2:
            raise ConfigError(f"generator.temperature ({self.temperature}) must lie between 0 and 2, or be null")
        for name in ("input_price", "output_price"):
            if getattr(self, name) is not None and getattr(self, name) < 0:
                raise ConfigError(f"generator.{name} ({getattr(self, name)}) must not be negative")
        if self.price_per_million is not None:
            raise ConfigError(
                "generator.price_per_million does not apply to a language model (input and output tokens are "
                "priced apart); set generator.input_price and generator.output_price instead"
            )


def chat_price(cfg: ChatSettings) -> Price | None:
    """The settings' prices when both are given (cached input then billed as input: an upper bound), else the
    table's, else None (unknown)."""
    if cfg.input_price is not None and cfg.output_price is not None:
        return Price(cfg.input_price, cfg.output_price, cache_write=0.0, cache_read=cfg.input_price)
    return model_price(cfg.model)


@dataclass(frozen=True)
class ChatReply:
    """One answer: its text and its tokens by kind (``input``, ``cache_read``, ``output``)."""

    text: str
    tokens: dict[str, int]


class ChatClient:
    """One model's client: ``reply(system, user)`` is the answer; tokens and requests are counted."""

    def __init__(self, cfg: ChatSettings, otherwise: str) -> None:
        """``otherwise`` completes a message that stops the verb, e.g. "or use generator=offline"."""
        if not cfg.model:
            raise ConfigError("generator.model is empty; set generator.model=<model id>, e.g. gpt-4o-mini or llama3.1")
        self.cfg, self.otherwise = cfg, otherwise
        self._client = openai_client(cfg, openai_key(cfg, "generator=openai"))
        self.base_url = shown_url(str(self._client.base_url))  # base_url, else $OPENAI_BASE_URL, else OpenAI's
        self.calls = Usage(cfg.model)  # requests and retries (call_with_retries counts them)
        self.tokens = {"input": 0, "cache_write": 0, "cache_read": 0, "output": 0}
        self._classify = classifier("generator", cfg.api_key_env)
        self._policy, self._pacer, self._lock = RetryPolicy.from_config(cfg), Pacer(), threading.Lock()
        # what the replies depend on besides the prompt (never the key): the server, the model, the settings
        self.key = digest(
            "openai-chat",
            self.base_url,
            sorted(cfg.headers.items()),
            cfg.model,
            cfg.limit_field,
            cfg.max_tokens,
            cfg.temperature,
        )

    @property
    def cost_usd(self) -> float | None:
        return llm_cost(self.tokens, chat_price(self.cfg))

    def usage(self) -> dict[str, int]:
        """HTTP requests (retries included), retries, and tokens by kind, for a verb's summary."""
        return {"requests": self.calls.requests, "retries": self.calls.retries, **self.tokens}

    def reply(self, system: str, user: str) -> ChatReply:
        """The model's answer to ``system`` then ``user`` (the stable part of a prompt first)."""
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        extra = {self.cfg.limit_field: self.cfg.max_tokens}
        if self.cfg.temperature is not None:
            extra["temperature"] = self.cfg.temperature
        try:
            text, counts, billed = call_with_retries(
                lambda: self._send(messages, extra), self._policy, self._classify, self.calls, "chat", self._pacer
            )
        except CallFailed as exc:
            raise self._failure(exc) from None
        self._pacer.spend(billed)
        with self._lock:
            for kind, value in counts.items():
                self.tokens[kind] += value
        return ChatReply(text, counts)

    def _send(self, messages: list[dict], extra: dict) -> tuple[str, dict[str, int], int]:
        raw = self._client.chat.completions.with_raw_response.create(model=self.cfg.model, messages=messages, **extra)
        self._pacer.learn({k.lower(): v for k, v in raw.headers.items()})
        answer = raw.parse()
        choices = getattr(answer, "choices", None)
        if not choices or getattr(choices[0], "message", None) is None:
            raise MalformedAnswer("the answer has no choices[0].message")
        return (choices[0].message.content or "").strip(), *reply_tokens(getattr(answer, "usage", None))

    def _failure(self, exc: CallFailed) -> Exception:
        """The one-line project error: a setting to fix (ConfigError), or the server that failed (ServiceError)."""
        where = f"generator=openai ({self.cfg.model} at {self.base_url})"
        if exc.setting:
            return ConfigError(f"{where}: {exc}")
        return ServiceError(
            f"{where}: {exc}; check generator.base_url and that the server is running, {self.otherwise}; "
            "replies already received are cached and a rerun does not ask for them again"
        )

    def close(self) -> None:
        self._client.close()


def shown_url(url: str) -> str:
    """``url`` without credentials or a trailing slash: what messages, outputs and the reply key name."""
    where = urlsplit(url.rstrip("/"))
    host = f"[{where.hostname}]" if ":" in (where.hostname or "") else where.hostname
    return f"{where.scheme}://{host}{f':{where.port}' if where.port else ''}{where.path}"


def reply_tokens(usage) -> tuple[dict[str, int], int]:
    """``({input, cache_read, output}, billed)`` from a chat answer's ``usage`` (zeros where absent)."""
    prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
    details = getattr(usage, "prompt_tokens_details", None)
    cached = min(prompt, int(getattr(details, "cached_tokens", 0) or 0))
    output = int(getattr(usage, "completion_tokens", 0) or 0)
    return {"input": prompt - cached, "cache_read": cached, "output": output}, prompt + output


class CachedAsker:
    """What a side verb's LLM generator holds: its settings, the disk cache, ``key`` (what its replies depend on
    besides the part of the prompt that changes) and ``concurrency`` (requests at once: 1 unless it says)."""

    key: str
    concurrency = 1

    def __init__(self, cfg, cache: DiskCache) -> None:
        self.cfg, self.cache = cfg, cache


def cached_replies(
    cache: DiskCache,
    namespace: str,
    items: Sequence[T],
    key: Callable[[T], str],
    ask: Callable[[T], str],
    concurrency: int,
    bar,
) -> list[str]:
    """The reply to each item, in order: ``cached_reply`` under ``key(item)``, up to ``concurrency`` asked at once
    (a failure keeps the replies received); ``bar`` (a progress report) counts each."""

    def one(item: T) -> str:
        text, _ = cached_reply(cache, namespace, key(item), lambda: ask(item))
        bar.update(1)
        return text

    return bounded_map(one, list(items), concurrency)


def cached_reply(cache: DiskCache, namespace: str, key: str, ask: Callable[[], str]) -> tuple[str, bool]:
    """``(reply, was_cached)``: the reply stored under ``key``, else ``ask()``'s, stored at once (a killed run
    resumes from it)."""
    stored = cache.get(namespace, key)
    if stored is not None:
        return stored.decode("utf-8"), True
    text = ask()
    cache.put(namespace, key, text.encode("utf-8"))
    return text, False
